"""The command line: start-up errors are one clear line; operator commands work without Discord."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage.db import Database
from storage.jobs import JobStore
from tools.engine import Engine, Target
from tools.schedule import Once, Schedule

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
    assert "homar chat" in result.stderr
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
