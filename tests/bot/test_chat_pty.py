"""`homar chat` driven through a pseudo-terminal, as a person would use it.

Every wait is on output (pexpect), never on time, with generous timeouts for a loaded
machine. The model is the offline one; the Ctrl-C test wraps it so that one message stalls.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
WAIT = 90  # seconds for any one expected output; a busy 2-core box can be slow
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "HOMAR_"))}
    env.update(
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/chat.db",
        DEFAULT_TIMEZONE="UTC",
        PYTHONPATH=str(ROOT),
        TERM="xterm-256color",
        PROMPT_TOOLKIT_NO_CPR="1",  # the pty never answers cursor-position queries
        NO_COLOR="1",  # replies without bold/dim codes, so patterns match plain words
    )
    # pydantic-ai hides its banner under pytest or CI by itself; the chat must not rely on it.
    for var in ("PYTEST_VERSION", "CI", "PYDANTIC_AI_NO_BANNER"):
        env.pop(var, None)
    return env


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[object]:
    child = _spawn(tmp_path, [sys.executable, "-m", "bot", "chat"])
    yield child
    _close(child)


def _spawn(tmp_path: Path, argv: list[str]) -> object:
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        cwd=str(tmp_path),
        env=_env(tmp_path),
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=WAIT,
    )
    child.expect("Ctrl-D quits")
    child.expect("you>")
    return child


def _quit(child: object) -> None:
    """Ctrl-D at a fresh prompt (typed while a reply is still being printed, the terminal
    is not in raw mode and the keypress would only end that read)."""
    child.expect("you>")  # type: ignore[attr-defined]
    child.sendcontrol("d")  # type: ignore[attr-defined]
    child.expect(pexpect.EOF)  # type: ignore[attr-defined]


def _close(child: object) -> None:
    if child.isalive():  # type: ignore[attr-defined]
        child.sendcontrol("d")  # type: ignore[attr-defined]
        try:
            child.expect(pexpect.EOF, timeout=30)  # type: ignore[attr-defined]
        except pexpect.TIMEOUT:
            child.terminate(force=True)  # type: ignore[attr-defined]


def _said(child: object, pattern: str) -> str:
    """Wait for `pattern` (a regex) and return what matched, escape codes removed."""
    child.expect(pattern)  # type: ignore[attr-defined]
    return ANSI.sub("", child.after)  # type: ignore[attr-defined]


def test_reminder_in_local_time_then_snooze_and_done_by_typing(chat: object) -> None:
    chat.sendline("/timezone set Europe/Berlin")  # type: ignore[attr-defined]
    _said(chat, r"Your time zone is now .{0,12}Europe/Berlin")
    chat.sendline("remind me in 30 minutes to water the plants")  # type: ignore[attr-defined]
    line = _said(chat, r"job #1 runs [^\r\n]*\(in \d+ min\)")
    due = datetime.now(UTC) + timedelta(minutes=30)
    berlin = [
        f"{(due + timedelta(seconds=d)).astimezone(ZoneInfo('Europe/Berlin')):%H:%M}"
        for d in (-90, -30, 0, 30)
    ]
    assert any(hhmm in line for hhmm in berlin), (line, berlin)  # Berlin wall clock, not UTC
    assert "<t:" not in line

    chat.sendline("/jobs run-now 1")  # type: ignore[attr-defined]
    _said(chat, r"Running #1 now")
    _said(chat, r"\[DELAYED_COMMAND\] Send a reminder about: water the plants")
    _said(chat, r"\[d\]one / \[s\]nooze 10m\|1h\|tomorrow\|<time>")
    chat.sendline("s 1h")  # type: ignore[attr-defined]
    snoozed = _said(chat, r"Snoozed until [^\r\n]*\(in 1 h\)")
    assert "<t:" not in snoozed
    chat.sendline("/jobs cancel 1")  # type: ignore[attr-defined]
    _said(chat, r"Cancelled #1")

    chat.sendline("remind me in 3 seconds to stretch")  # type: ignore[attr-defined]
    _said(chat, r"job #2 runs")
    _said(chat, r"\[DELAYED_COMMAND\] Send a reminder about: stretch")
    _said(chat, r"\[d\]one")
    chat.sendline("snooze in 3 seconds")  # type: ignore[attr-defined]  # any time phrase
    _said(chat, r"Snoozed until [^\r\n]*\(in [1-3] s\)")
    _said(chat, r"\[DELAYED_COMMAND\] Send a reminder about: stretch")
    _said(chat, r"\[d\]one")
    chat.sendline("d")  # type: ignore[attr-defined]
    _said(chat, r"Done[^\r\n]*no more nudges")
    chat.sendline("/jobs list")  # type: ignore[attr-defined]
    _said(chat, r"Nothing scheduled")
    _quit(chat)


def test_repeating_job_is_approved_by_typing_a(chat: object) -> None:
    chat.sendline("every day at 9 post hello")  # type: ignore[attr-defined]
    _said(chat, r"please approve or deny")
    _said(chat, r"\[a\]pprove / \[d\]eny")
    chat.sendline("a")  # type: ignore[attr-defined]
    _said(chat, r"Approved\.")
    created = _said(chat, r"Job #1: every day at 09:00 \(UTC\)[^\r\n]*")
    assert "<t:" not in created
    chat.sendline("/jobs list")  # type: ignore[attr-defined]
    _said(chat, r"#1[^\r\n]*recurring[^\r\n]*every day at 09:00")
    _quit(chat)


def test_a_job_firing_while_typing_keeps_the_line(chat: object) -> None:
    chat.sendline("remind me in 2 seconds to look up")  # type: ignore[attr-defined]
    _said(chat, r"job #1 runs")
    chat.expect("you>")  # type: ignore[attr-defined]
    chat.send("/jobs hist")  # type: ignore[attr-defined]
    _said(chat, r"\[DELAYED_COMMAND\] Send a reminder about: look up")
    _said(chat, r"\[d\]one")
    _said(chat, r"you> /jobs hist")  # the half-typed line is drawn again below the output
    chat.sendline("ory 1")  # type: ignore[attr-defined]
    _said(chat, r"Job #1 — last runs")
    _quit(chat)


def test_ctrl_c_cancels_a_slow_model_call_and_chat_carries_on(tmp_path: Path) -> None:
    child = _spawn(tmp_path, [sys.executable, str(ROOT / "tests/bot/stalling_chat.py"), "chat"])
    try:
        child.sendline("please think slowly about lunch")  # type: ignore[attr-defined]
        _said(child, r"thinking")
        child.sendintr()  # type: ignore[attr-defined]
        _said(child, r"Cancelled")
        child.sendline("/timezone show")  # type: ignore[attr-defined]
        _said(child, r"I assume .{0,12}UTC")
        child.sendline("remind me in 1 hour to eat")  # type: ignore[attr-defined]
        _said(child, r"job #1 runs")
        child.send("half a line")  # type: ignore[attr-defined]
        child.sendintr()  # type: ignore[attr-defined]  # Ctrl-C at the prompt drops the line
        child.sendline("/jobs list")  # type: ignore[attr-defined]
        _said(child, r"#1[^\r\n]*eat")
        _quit(child)
    finally:
        _close(child)


def test_piped_chat_prints_the_reminder_before_exiting(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "chat"],
        input="remind me in 15 seconds to check the pasta\nremind me in 3 hours to call Sam\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path),
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "[DELAYED_COMMAND] Send a reminder about: check the pasta" in out
    fired = out.split("[DELAYED_COMMAND]", 1)[1]
    assert "check the pasta" in fired.split("\n", 2)[1]
    # What is left is named, with its time, instead of silently waiting for a later start.
    assert "Still scheduled" in fired and "call Sam" in fired and "(in 3 h)" in fired
    assert "<t:" not in out and "pydantic" not in (out + result.stderr).lower()


def test_piped_wait_zero_leaves_later_jobs_and_says_so(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "chat", "--wait", "0"],
        input="remind me in 10 minutes to stretch\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "job #1" in result.stdout and "[DELAYED_COMMAND]" not in result.stdout
    assert "Still scheduled" in result.stdout and "#1" in result.stdout.split("Still")[1]
