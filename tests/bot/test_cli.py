"""The command line: start-up errors are one clear line; operator commands work without Discord."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.settings import Settings
from storage.approvals import ApprovalStore
from storage.db import Database
from storage.jobs import JobStore
from tools.jobs.engine import Engine
from tools.jobs.model import Target
from tools.schedule import Every, Once, Schedule

ROOT = Path(__file__).resolve().parents[2]


def homar(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "HOMAR_"))}
    base["PYTHONPATH"] = str(ROOT)
    base.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        env=base,
        cwd=cwd or ROOT,
        timeout=60,
    )


def test_run_without_token_explains_and_suggests_chat(tmp_path: Path) -> None:
    result = homar(
        "run", env={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/h.db"}, cwd=tmp_path
    )
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr
    assert "./homar chat" in result.stderr  # what to type in the checkout the README describes
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("DEFAULT_TIMEZONE", "Mars/Olympus"),
        ("DATABASE_URL", "mysql://nope"),
        ("MAX_HORIZON", "forever"),
        ("REMINDER_ACK_MODE", "psychic"),
        ("DISCORD_API_BASE", "not a url"),
    ],
)
def test_invalid_setting_is_one_line_naming_the_variable(
    tmp_path: Path, var: str, value: str
) -> None:
    result = homar("run", env={"DISCORD_TOKEN": "x", var: value}, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert var in lines[0]
    assert "Traceback" not in result.stderr


def test_help_lists_commands_with_examples() -> None:
    result = homar("--help")
    assert result.returncode == 0
    for word in ("run", "chat", "jobs", "db", "status", "homar jobs cancel 42"):
        assert word in result.stdout


async def test_operator_jobs_list_cancel_status(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/ops.db"
    db = Database(url)
    await db.upgrade()
    engine = Engine(JobStore(db))
    at = datetime.now(UTC) + timedelta(days=1)
    job = await engine.create(
        target=Target(owner_id=77, channel_id=5),
        command="water the plants",
        schedule=Schedule(Once(at)),
        kind="reminder",
    )
    await engine.create(
        target=Target(owner_id=88, channel_id=5),
        command="someone else's",
        schedule=Schedule(Once(at)),
        kind="reminder",
    )
    await db.close()
    env = {"DATABASE_URL": url}

    listed = homar("jobs", "list", "--user", "77", env=env)
    assert listed.returncode == 0
    assert "water the plants" in listed.stdout and "someone else's" not in listed.stdout

    status = homar("status", env=env)
    assert "pending: 2" in status.stdout

    cancelled = homar("jobs", "cancel", str(job.id), env=env)
    assert cancelled.returncode == 0 and f"#{job.id}" in cancelled.stdout
    again = homar("jobs", "cancel", str(job.id), env=env)
    assert again.returncode == 1 and "already cancelled" in again.stderr
    missing = homar("jobs", "cancel", "999", env=env)
    assert missing.returncode == 1 and "no job #999" in missing.stderr

    upgraded = homar("db", "upgrade", env=env)
    assert upgraded.returncode == 0 and "up to date" in upgraded.stdout


def test_version() -> None:
    result = homar("--version")
    assert result.returncode == 0 and result.stdout.startswith("homar ")


async def test_operator_show_pause_resume_edit_history_run_now(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/ops.db"
    db = Database(url)
    await db.upgrade()
    engine = Engine(JobStore(db))
    daily = await engine.create(
        target=Target(owner_id=77, channel_id=5),
        command="stretch",
        schedule=Schedule(Every(86400, datetime.now(UTC) + timedelta(hours=2)), "Europe/Berlin"),
        kind="interval",
    )
    await db.close()
    env = {"DATABASE_URL": url, "DEFAULT_TIMEZONE": "Europe/Berlin"}

    shown = homar("jobs", "show", str(daily.id), env=env)
    assert shown.returncode == 0, shown.stderr
    assert "stretch" in shown.stdout and "every day" in shown.stdout
    assert "(in 2 h)" in shown.stdout and "<t:" not in shown.stdout

    paused = homar("jobs", "pause", str(daily.id), env=env)
    # The slash hint is given in terminal words.
    assert f"homar jobs resume {daily.id}" in paused.stdout and "/jobs" not in paused.stdout
    assert homar("jobs", "resume", str(daily.id), env=env).returncode == 0

    edited = homar("jobs", "edit", str(daily.id), "--what", "stretch and breathe", env=env)
    assert edited.returncode == 0 and "stretch and breathe" in edited.stdout
    bad = homar("jobs", "edit", str(daily.id), "--when", "the thirtieth of february", env=env)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and bad.stderr.strip()

    assert "hasn't run yet" in homar("jobs", "history", str(daily.id), env=env).stdout
    ran = homar("jobs", "run-now", str(daily.id), env=env)
    assert ran.returncode == 0 and "due now" in ran.stdout

    missing = homar("jobs", "show", "999", env=env)
    assert missing.returncode == 1 and "homar jobs list" in missing.stderr


async def test_status_counts_pending_approvals(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/ops.db"
    db = Database(url)
    await db.upgrade()
    store = ApprovalStore(db)
    await store.add(
        user_id=1,
        channel_id=1,
        payload={"calls": []},
        created_at=datetime.now(UTC),
        expires_at=datetime.now(UTC) + timedelta(hours=1),
    )
    await db.close()
    result = homar("status", env={"DATABASE_URL": url})
    assert result.returncode == 0
    assert re.search(r"approvals: 1\b", result.stdout), result.stdout
    assert "late runs (24 h): 0" in result.stdout and "failed runs (24 h): 0" in result.stdout


def test_export_import_through_the_cli(tmp_path: Path) -> None:
    src = {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/a.db"}
    dst = {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/b.db"}
    assert homar("jobs", "export", str(tmp_path / "empty.ics"), env=src).returncode == 0
    made = homar("jobs", "import", str(tmp_path / "empty.ics"), env=dst)
    assert made.returncode == 0 and "Imported 0 jobs" in made.stdout
    (tmp_path / "junk.json").write_text("{nope")
    junk = homar("jobs", "import", str(tmp_path / "junk.json"), env=dst)
    assert junk.returncode == 1 and "isn't valid JSON" in junk.stderr
    gone = homar("jobs", "import", str(tmp_path / "nothing.json"), env=dst)
    assert gone.returncode == 1 and "Can't read" in gone.stderr


def test_every_setting_is_documented_in_env_example() -> None:
    documented = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M)
    )
    fields = {name.upper() for name in Settings.model_fields}
    assert fields <= documented, sorted(fields - documented)


def test_log_format_is_read_from_dot_env(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LOG_FORMAT=json\nLOG_LEVEL=debug\n")
    script = (
        "from bot.settings import load_settings; s = load_settings(); "
        "print(s.log_format, s.log_level)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if k not in ("LOG_FORMAT", "LOG_LEVEL")},
            "PYTHONPATH": str(ROOT),
        },
        timeout=60,
    )
    assert result.stdout.split() == ["json", "DEBUG"], result.stderr
    (tmp_path / ".env").write_text("LOG_FORMAT=xml\n")
    bad = homar(
        "status", cwd=tmp_path, env={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/x.db"}
    )
    assert bad.returncode == 2 and "LOG_FORMAT" in bad.stderr and "text or json" in bad.stderr
