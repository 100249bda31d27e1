"""`/remind` and `/timezone set` typed in chat run the very function Discord's commands run.

The same commands go through the fake Discord and through the console, each on its own
database with the same hand-moved clock; the shared function's answers must be equal
(the embeds and the terminal text are only two renderings of them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import bot.commands.remind as shared_remind
import bot.commands.timezone as shared_timezone
import bot.typed_commands as typed_commands
from bot.commands import Answer
from bot.console import CONSOLE_USER, Console
from bot.settings import load_settings
from bot.wiring import console
from tests.bot.harness import World, running_bot

Recorded = list[tuple[str, Answer]]


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Recorded:
    """Every answer the shared /remind and /timezone set functions give, in order."""
    seen: Recorded = []

    def spy(name: str, fn: Callable[..., Awaitable[Answer]]) -> Callable[..., Awaitable[Answer]]:
        async def wrapped(*args: Any, **kwargs: Any) -> Answer:
            got = await fn(*args, **kwargs)
            seen.append((name, got))
            return got

        return wrapped

    remind = spy("remind", shared_remind.remind)
    monkeypatch.setattr(shared_remind, "remind", remind)  # Discord: `shared.remind(…)`
    monkeypatch.setattr(typed_commands, "remind", remind)  # chat imported the name
    monkeypatch.setattr(shared_timezone, "set_zone", spy("set_zone", shared_timezone.set_zone))
    return seen


COMMANDS: list[tuple[str, str | None, dict[str, str], str]] = [
    (
        "remind",
        None,
        {"when": "tomorrow 9am", "what": "call Kenji", "zone": "Asia/Tokyo"},
        "/remind when: tomorrow 9am what: call Kenji zone: Asia/Tokyo",
    ),
    (
        "remind",
        None,
        {"when": "friday 17:30", "what": "water the plants", "follow_up": "yes"},
        "/remind when: friday 17:30 what: water the plants follow_up: yes",
    ),
    ("timezone", "set", {"zone": "Europe/Berlin"}, "/timezone set Europe/Berlin"),
]


async def test_chat_and_discord_get_the_same_answers(
    world: World, tmp_path: Path, answers: Recorded
) -> None:
    async with running_bot(world):
        for name, sub, options, _typed in COMMANDS:
            values: dict[str, Any] = dict(options)
            if "follow_up" in values:
                values["follow_up"] = True
            handle = await world.fake.slash(
                name, values, subcommand=sub, user_id=world.alice.id, channel_id=world.channel.id
            )
            await handle.wait_answer()
    discord = list(answers)
    answers.clear()

    settings = load_settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path}/chat.db",
        default_timezone="UTC",
    )
    lines: list[str] = []
    chat = console(settings, clock=world.clock, write=lines.append)
    runtime = chat.runtime
    await runtime.open()
    await runtime.start()
    try:
        printed = []
        for *_, typed in COMMANDS:
            before = len(lines)
            await chat.submit(typed)
            printed.append("".join(lines[before:]))
        jobs = await runtime.engine.list_jobs(owner_id=CONSOLE_USER)
        moved = "".join(await _say(chat, lines, "/timezone move UTC Europe/Berlin"))
        after = {j.command: j.tz for j in await runtime.engine.list_jobs(owner_id=CONSOLE_USER)}
    finally:
        await runtime.close()

    assert [n for n, _ in discord] == ["remind", "remind", "set_zone"]
    assert [n for n, _ in answers] == ["remind", "remind", "set_zone"]
    for (_, on_discord), (_, in_chat) in zip(discord, answers, strict=True):
        if on_discord.zone_move is not None:  # the offer names whose jobs they are
            on_discord = replace(
                on_discord, zone_move=replace(on_discord.zone_move, user_id=CONSOLE_USER)
            )
        assert in_chat == on_discord
    tokyo, plants, zone = (a for _, a in answers)
    assert tokyo.card is not None and "zone Asia/Tokyo" in tokyo.card.footer
    zones = {j.command: j.tz for j in jobs}
    assert zones == {"call Kenji": "Asia/Tokyo", "water the plants": "UTC"}
    kenji = next(j for j in jobs if j.command == "call Kenji")
    assert kenji.next_run_at == datetime(2026, 11, 24, 0, 0, tzinfo=UTC)  # 09:00 in Tokyo
    assert plants.card is not None and plants.card.fields[-1][0] == "Follow-up"
    # The zone change offers to move the one job still in UTC, in both places.
    assert zone.zone_move is not None and zone.zone_move.count == 1
    assert "Europe/Berlin" in zone.text and "Europe/Berlin" in printed[2]
    assert zone.zone_move.question in printed[2].replace("**", "")
    assert "/timezone move UTC Europe/Berlin" in printed[2]
    assert "Moved 1 job to Europe/Berlin." in moved
    assert after == {"call Kenji": "Asia/Tokyo", "water the plants": "Europe/Berlin"}


async def _say(chat: Console, lines: list[str], text: str) -> list[str]:
    before = len(lines)
    await chat.submit(text)
    return lines[before:]
