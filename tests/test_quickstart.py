"""The README's quick start, from a clean clone: the launcher sets itself up and works."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _clean_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "HOMAR_", "VIRTUAL_ENV", "PYTHONPATH"))
        and k not in ("DATABASE_URL", "DEFAULT_TIMEZONE")
    }
    env["PYTHON"] = sys.executable if sys.version_info >= (3, 11) else "python3"
    return env


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to clone")
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if head.returncode != 0:
        pytest.skip("the checkout has no commits yet")
    target = tmp_path_factory.mktemp("quickstart") / "homar"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True, timeout=120)
    # The launcher builds its own virtualenv on first use; the clone shares nothing with ours.
    result = subprocess.run(
        ["./homar", "--help"],
        cwd=target,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "homar run" in result.stdout and "homar chat" in result.stdout
    assert (target / ".venv" / "bin" / "homar").exists()
    return target


def test_run_without_token_says_what_to_do(clone: Path) -> None:
    result = subprocess.run(
        ["./homar", "run"], cwd=clone, env=_clean_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr and "./homar chat" in result.stderr


def test_chat_from_piped_stdin_fires_the_reminder(clone: Path) -> None:
    result = subprocess.run(
        ["./homar", "chat"],
        cwd=clone,
        env=_clean_env(),
        input="remind me in 6 seconds to stretch\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "job #1" in out
    # A cold first request on a slow machine takes a few seconds; the time still reads as words.
    assert re.search(r"\(in [1-6] s\)", out) and "<t:" not in out  # words, not Discord markup
    assert "[DELAYED_COMMAND] Send a reminder about: stretch" in out
    assert out.index("job #1") < out.index("[DELAYED_COMMAND]")
    assert "stretch" in out.split("[DELAYED_COMMAND]", 1)[1].split("\n", 1)[1]
    assert (clone / "data" / "homar.db").exists()  # SQLite by default, folder created


def test_test_command_collects_the_suite(clone: Path) -> None:
    result = subprocess.run(
        ["./homar", "test", "--collect-only", "-q", "tests/tools/test_schedule.py"],
        cwd=clone,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "test_schedule.py" in result.stdout
