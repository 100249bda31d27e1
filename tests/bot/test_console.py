"""The chat console in-process: rendering, typed choices and typed slash commands.

The clock is moved by hand; a fired job is awaited through the dispatcher, never slept for.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.clock import ManualClock
from bot.console import CONSOLE_USER, Console
from bot.settings import load_settings
from bot.terminal import TerminalRenderer, relative
from bot.typed_commands import parse
from bot.wiring import console as console_of
from tools.jobs.model import Target, schedule_of
from tools.schedule import Once, Schedule

START = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)  # a Monday


@pytest.fixture
async def console(tmp_path: Path) -> AsyncIterator[tuple[Console, list[str], ManualClock]]:
    clock = ManualClock(START)
    settings = load_settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/c.db")
    lines: list[str] = []
    chat = console_of(settings, clock=clock, write=lines.append)
    runtime = chat.runtime
    await runtime.open()
    await runtime.start()
    try:
        yield chat, lines, clock
    finally:
        await runtime.close()


async def _say(chat: Console, lines: list[str], text: str) -> str:
    """Type one line and return what chat printed for it."""
    before = len(lines)
    await chat.submit(text)
    return "".join(lines[before:])


async def _fire(chat: Console, clock: ManualClock, delta: timedelta) -> None:
    await clock.advance(delta)
    runtime = chat.runtime
    assert runtime.dispatcher is not None
    for _ in range(50):
        await runtime.dispatcher.idle()
        await runtime.queues.join()
        if not runtime.dispatcher.busy:
            return
        await asyncio.sleep(0)


def test_renderer_shows_times_in_the_persons_zone() -> None:
    at = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)
    stamp = int(at.timestamp())
    text = f"**Job #7** runs <t:{stamp}:F> (<t:{stamp}:R>) for <@1>; `code` and <#55>"
    out = TerminalRenderer(user_id=1, styled=False).render(
        text, now=START, tz=ZoneInfo("Europe/Berlin")
    )
    assert out == "Job #7 runs Tue 24 Nov 09:00 (in 18 h) for @you; code and #channel 55"
    next_year = datetime(2027, 1, 2, 9, 30, tzinfo=UTC)
    assert "Sat 2 Jan 2027 09:30" in TerminalRenderer(user_id=1, styled=False).render(
        f"<t:{int(next_year.timestamp())}:F>", now=START, tz=ZoneInfo("UTC")
    )
    styled = TerminalRenderer(user_id=1, styled=True).render(
        "**bold**", now=START, tz=ZoneInfo("UTC")
    )
    assert styled == "\x1b[1mbold\x1b[0m"
    assert relative(START - timedelta(minutes=3), START) == "3 min ago"


def test_typed_commands_read_like_discord_options() -> None:
    typed = parse("/jobs edit id: 42 when: friday 10am what: call mom")
    assert (typed.group, typed.sub) == ("jobs", "edit")
    assert typed.options == {"id": "42", "when": "friday 10am", "what": "call mom"}
    plain = parse("/todo add buy milk, eggs")
    assert (plain.sub, plain.positional) == ("add", "buy milk, eggs")


async def test_typed_commands_run_the_slash_command_code(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, _ = console
    out = await _say(chat, lines, "/timezone set the US")
    assert "several time zones" in out and "city" in out
    out = await _say(chat, lines, "/timezone set Berlin")
    assert "Europe/Berlin" in out and "15:00" in out  # 14:00 UTC is 15:00 in Berlin
    out = await _say(chat, lines, "/remind when: tomorrow 9am what: call the dentist")
    assert "Job #1 scheduled" in out and "Tue 24 Nov 09:00 (in 18 h)" in out and "<t:" not in out
    assert "/jobs cancel 1" in out
    out = await _say(chat, lines, "/jobs edit 1 when: friday 10am")
    assert "Fri 27 Nov 10:00" in out
    out = await _say(chat, lines, "/todo add draft the newsletter")
    assert "Added to-do #1" in out
    assert "draft the newsletter" in await _say(chat, lines, "/todo list")
    assert "Heartbeat on" in await _say(chat, lines, "/heartbeat on 1h")
    assert "Heartbeat is on" in await _say(chat, lines, "/heartbeat status")
    # Someone else's job: the same refusal Discord gives.
    other = await chat.runtime.engine.create(
        target=Target(owner_id=99, channel_id=5),
        command="theirs",
        schedule=Schedule(Once(START + timedelta(days=1))),
        kind="reminder",
    )
    refused = await _say(chat, lines, f"/jobs cancel {other.id}")
    assert "theirs" not in refused and "Cancelled" not in refused and refused.strip()
    assert "Give the job's number" in await _say(chat, lines, "/jobs cancel soon")
    unknown = await _say(chat, lines, "/launch")
    assert "There is no /launch command" in unknown and "/help" in unknown
    assert "Type what you want" in await _say(chat, lines, "/help")
    assert "Mention me in a channel" not in await _say(chat, lines, "/help")


async def test_typed_remind_escalates_like_discord_and_refuses_unknown_escalations(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, _ = console
    out = await _say(chat, lines, "/remind when: in 1 hour what: pay rent escalate: sms")
    assert "escalate can only be dm" in out
    assert await chat.runtime.engine.list_jobs(owner_id=CONSOLE_USER) == []
    out = await _say(chat, lines, "/remind when: in 1 hour what: pay rent escalate: DM")
    [job] = await chat.runtime.engine.list_jobs(owner_id=CONSOLE_USER)
    assert job.follow_up == {"interval_s": 1800, "max": 2, "escalate": "dm"}
    assert "Escalation" in out and "DM you once" in out


async def test_reminder_choices_act_like_the_buttons(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, clock = console
    out = await _say(chat, lines, "remind me in 10 minutes to stretch")
    assert "job #1" in out and "(in 10 min)" in out
    await _fire(chat, clock, timedelta(minutes=10))
    printed = "".join(lines)
    assert "[DELAYED_COMMAND] Send a reminder about: stretch" in printed
    assert "[d]one / [s]nooze 10m|1h|tomorrow|<time>" in printed
    out = await _say(chat, lines, "snooze tomorrow")
    assert "Snoozed until Tue 24 Nov 09:00" in out
    job = await chat.runtime.store.get(1)
    assert job is not None and job.next_run_at == datetime(2026, 11, 24, 9, tzinfo=UTC)
    await _fire(chat, clock, job.next_run_at - clock.now())
    out = await _say(chat, lines, "s at noon on friday")
    assert "Fri 27 Nov 12:00" in out
    await _fire(chat, clock, datetime(2026, 11, 27, 12, tzinfo=UTC) - clock.now())
    assert "Done" in await _say(chat, lines, "d")
    assert (await chat.runtime.store.get(1)).status == "completed"  # type: ignore[union-attr]
    # With no reminder waiting, "d" is just a message for the agent.
    assert "Done — no more nudges" not in await _say(chat, lines, "d")


async def test_approval_by_typing_and_again_after_a_restart(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, _ = console
    out = await _say(chat, lines, "every weekday at 9 post standup time")
    assert "[a]pprove / [d]eny" in out and "Tue 24 Nov 09:00" in out and "<t:" not in out
    chat.offers.clear()  # as if chat had been restarted: the proposal is only in the database
    await chat.reopen()
    assert "Still waiting for you" in "".join(lines)
    out = await _say(chat, lines, "yes")
    assert "Approved." in out and "Job #1" in out
    assert (await chat.runtime.store.get(1)).kind == "recurring"  # type: ignore[union-attr]
    out = await _say(chat, lines, "every day at 8 post hello")
    assert "Denied." in await _say(chat, lines, "d")
    assert len(await chat.runtime.engine.list_jobs(owner_id=CONSOLE_USER)) == 1


async def test_an_unanswered_proposal_expires_while_chat_runs(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, clock = console
    assert "[a]pprove" in await _say(chat, lines, "every day at 8 post hello")
    sweeping = asyncio.create_task(chat.sweep_forever())
    try:
        await asyncio.sleep(0)
        await clock.advance(timedelta(hours=24, minutes=2))
        for _ in range(200):
            await chat.runtime.queues.join()
            if "in time" in "".join(lines):
                break
            await asyncio.sleep(0.01)
    finally:
        sweeping.cancel()
    assert "Nobody approved my proposal in time" in "".join(lines)
    assert not chat.offers  # the expired proposal is no longer offered
    assert await chat.runtime.engine.list_jobs(owner_id=CONSOLE_USER) == []


async def test_a_failing_repeating_job_is_reported_in_terminal_words(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    chat, lines, _ = console
    job = await chat.runtime.engine.create(
        target=Target(owner_id=CONSOLE_USER, channel_id=1),
        command="check the build",
        schedule=Schedule(Once(START + timedelta(hours=1))),
        kind="reminder",
    )
    chat.failure_notice(replace(job, status="paused", failure_streak=10), "the server said 500")
    said = "".join(lines)
    assert "paused your job #1" in said and "the server said 500" in said
    assert "/jobs resume 1" in said and "id:" not in said


async def test_typed_jobs_edit_sets_nudges_and_an_end(
    console: tuple[Console, list[str], ManualClock],
) -> None:
    """`/jobs edit` typed here changes what Discord's does (but whom it pings: Discord only)."""
    chat, lines, _ = console
    await _say(chat, lines, "/remind when: tomorrow 9am what: water the plants repeat: daily")
    assert "Updated #1" in await _say(chat, lines, "/jobs edit 1 follow_up: yes until: 3 times")
    job = await chat.runtime.engine.get(1)
    assert job.follow_up == {"interval_s": 1800, "max": 2} and schedule_of(job).max_runs == 3
    refused = await _say(chat, lines, "/jobs edit 1 follow_up: no escalate: dm")
    assert "escalate follows the nudges" in refused and (await chat.runtime.engine.get(1)).follow_up
    assert "Updated #1" in await _say(chat, lines, "/jobs edit 1 follow_up: no")
    assert not (await chat.runtime.engine.get(1)).follow_up
