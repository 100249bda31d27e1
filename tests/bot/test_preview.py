"""The live preview while typing `/remind when|repeat|until` and `/jobs edit when`.

Reference: Monday 23 Nov 2026 14:00 UTC = 15:00 in Europe/Berlin. Each expected line was
worked out by hand from that moment, not copied from the code's output.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.slash.preview import (
    IN_THE_PAST,
    NOT_UNDERSTOOD,
    choices,
    from_now,
    repeat_preview,
    until_preview,
    when_preview,
)
from storage.user_settings import UserSettingsStore
from tests.bot.harness import World, running_bot
from tools.jobs.engine import Engine

NOW = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)
TZ = "Europe/Berlin"
B = f"({TZ})"

WHEN = [
    ("tomorrow 9am", f"Tue 24 Nov 09:00 {B} — in 18 h"),
    ("tomorrow", f"Tue 24 Nov 09:00 {B} — in 18 h"),
    ("in 20 minutes", f"Mon 23 Nov 15:20 {B} — in 20 min"),
    ("in 2 hours", f"Mon 23 Nov 17:00 {B} — in 2 h"),
    ("at 16:45", f"Mon 23 Nov 16:45 {B} — in 1 h 45 min"),
    ("tonight at 8", f"Mon 23 Nov 20:00 {B} — in 5 h"),
    ("friday 17:30", f"Fri 27 Nov 17:30 {B} — in 4 days"),
    ("next monday noon", f"Mon 30 Nov 12:00 {B} — in 7 days"),
    ("in 3 days", f"Thu 26 Nov 15:00 {B} — in 3 days"),
    ("in 1 week", f"Mon 30 Nov 15:00 {B} — in 7 days"),
    ("2026-12-24 18:00", f"Thu 24 Dec 18:00 {B} — in 31 days"),
    ("dec 31 23:59", f"Thu 31 Dec 23:59 {B} — in 38 days"),
    ("noon", f"Tue 24 Nov 12:00 {B} — in 21 h"),
    ("3pm Tokyo time", "Tue 24 Nov 15:00 (Asia/Tokyo) — in 16 h"),
    ("tomorrow 9am in Tokyo", "Tue 24 Nov 09:00 (Asia/Tokyo) — in 10 h"),
    ("noon Springfield time", "Mon 23 Nov 12:00 (America/Chicago) — in 4 h"),
    ("9am in March", f"Mon 01 Mar 09:00 {B} — in 98 days"),
    ("3pm Narnia time", NOT_UNDERSTOOD),
    ("yesterday", IN_THE_PAST),
    ("2020-01-01", IN_THE_PAST),
    ("blah", NOT_UNDERSTOOD),
    ("asdf qwer", NOT_UNDERSTOOD),
    ("feb 30", "February has no 30th — did you mean March 2nd?"),
    ("in 10 years", "That is too far ahead; I can schedule up to 5 years out."),
    (
        "x" * 250,
        "`when` is too long to be a time; try something like `tomorrow 9am`, "
        "`every weekday at 8` or `5 times`.",
    ),
]

REPEAT = [
    ("every weekday at 8", "every weekday at 08:00, next Tue 24 Nov"),
    ("daily", "every day at 09:00, next Tue 24 Nov"),
    ("weekly", "every week on Tuesday at 09:00, next Tue 24 Nov"),
    ("every monday", "every Monday at 09:00, next Mon 30 Nov"),
    ("every 2 hours", "every 2 hours, next Tue 24 Nov 09:00"),
    ("every day 5 times", "every day at 09:00, 5 times, next Tue 24 Nov"),
    ("never", "does not repeat"),
    ("bogus", "not understood — try 'daily' or 'every weekday at 9'"),
    ("every 30 seconds", "Runs must be at least 60 seconds apart; try every 1 minutes or more."),
]

UNTIL = [
    ("5 times", "5 times"),
    ("once", "once"),
    ("friday", f"until Fri 27 Nov 23:59 {B} — in 4 days"),
    ("in 2 weeks", f"until Mon 07 Dec 15:00 {B} — in 14 days"),
    ("2026-12-31", f"until Thu 31 Dec 23:59 {B} — in 38 days"),
    ("yesterday", IN_THE_PAST),
    ("zz", NOT_UNDERSTOOD),
    ("1000000 times", "That's too many runs; give at most 100,000, e.g. `5 times`."),
]


def engine() -> Engine:
    return Engine(store=None, clock=lambda: NOW)  # type: ignore[arg-type]  # limits only


def test_at_least_thirty_phrases_are_previewed() -> None:
    assert len(WHEN) + len(REPEAT) + len(UNTIL) >= 30


@pytest.mark.parametrize(("typed", "expected"), WHEN)
def test_when_preview(typed: str, expected: str) -> None:
    assert when_preview(typed, now=NOW, tz=TZ, engine=engine()) == expected


@pytest.mark.parametrize(("typed", "expected"), REPEAT)
def test_repeat_preview_anchored_on_when(typed: str, expected: str) -> None:
    got = repeat_preview(typed, when="tomorrow 9am", now=NOW, tz=TZ, engine=engine())
    assert got == expected


@pytest.mark.parametrize(("typed", "expected"), UNTIL)
def test_until_preview(typed: str, expected: str) -> None:
    assert until_preview(typed, now=NOW, tz=TZ) == expected


def test_preview_reads_in_the_persons_zone() -> None:
    assert when_preview("tomorrow 9am", now=NOW, tz="Asia/Tokyo") == (
        "Tue 24 Nov 09:00 (Asia/Tokyo) — in 10 h"
    )


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (30, "in under a minute"),
        (59 * 60, "in 59 min"),
        (90 * 60, "in 1 h 30 min"),
        (19 * 3600, "in 19 h"),
        (3 * 86400, "in 3 days"),
    ],
)
def test_from_now(seconds: int, words: str) -> None:
    assert from_now(NOW + timedelta(seconds=seconds), NOW) == words


def test_choice_value_is_what_was_typed() -> None:
    [choice] = choices("tomorrow 9am", "Tue 24 Nov 09:00", ())
    assert choice.value == "tomorrow 9am"
    assert choice.name == "tomorrow 9am → Tue 24 Nov 09:00"
    assert len(choices("y" * 101, "anything", ())) == 0  # Discord refuses values over 100
    [long] = choices("z" * 90, "p" * 50, ())
    assert len(long.name) <= 100 and long.value == "z" * 90
    assert [c.value for c in choices("  ", "", ("daily", "weekly"))] == ["daily", "weekly"]


# ---------------------------------------------------------------- through Discord


async def names(world: World, options: dict[str, Any], focused: str, **kw: Any) -> list[str]:
    handle = await world.fake.autocomplete(
        kw.pop("command", "remind"),
        options,
        focused,
        user_id=world.alice.id,
        channel_id=world.channel.id,
        **kw,
    )
    body = await handle.wait_response()
    return [c["name"] for c in body["data"]["choices"]]


async def test_autocomplete_previews_in_the_users_zone(world: World) -> None:
    async with running_bot(world) as bot:
        await UserSettingsStore(bot.runtime.db).set_tz(world.alice.id, TZ)
        # The world's clock starts at 08:00 UTC = 09:00 in Berlin.
        when = await names(world, {"when": "tomorrow 9am", "what": "x"}, "when")
        assert when == [f"tomorrow 9am → Tue 24 Nov 09:00 {B} — in 24 h"]
        repeat = await names(
            world, {"when": "tomorrow 9am", "what": "x", "repeat": "every weekday"}, "repeat"
        )
        assert repeat == ["every weekday → every weekday at 09:00, next Tue 24 Nov"]
        until = await names(world, {"when": "tomorrow", "until": "3 times"}, "until")
        assert until == ["3 times → 3 times"]
        edit = await names(
            world, {"id": "1", "when": "yesterday"}, "when", command="jobs", subcommand="edit"
        )
        assert edit == [f"yesterday → {IN_THE_PAST}"]
        empty = await names(world, {"when": ""}, "when")
        assert "tomorrow 9am" in empty
