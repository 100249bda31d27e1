"""Nothing is accepted that cannot be delivered: job text limits, and splitting or trimming
long messages without breaking characters (emoji joiners, flags, marks stay whole)."""

from __future__ import annotations

import pytest

from bot.app import split_message
from tools.errors import UserError, quoted
from tools.jobs.engine import Engine
from tools.jobs.limits import Limits
from tools.jobs.marker import command_text
from tools.jobs.model import Target
from tools.message_size import MAX_MESSAGE, graphemes, size, trim, with_note
from tools.schedule import Once, Schedule

FAMILY = "👨\u200d👩\u200d👧\u200d👦"  # one character: four people joined by U+200D
FLAG = "🇺🇦"  # two regional indicators
ACCENT = "e\u0301"  # e + combining acute
HEBREW = "שלום\u200f"  # with a right-to-left mark
PEOPLE = [FAMILY, FLAG, ACCENT, HEBREW, "👍🏽"]


def pieces_are_whole(text: str, parts: list[str]) -> None:
    whole = set(graphemes(text))
    for part in parts:
        assert size(part) <= MAX_MESSAGE
        for g in graphemes(part):
            assert g in whole or g.isspace(), f"broken character {g!r}"


@pytest.mark.parametrize("thing", PEOPLE)
@pytest.mark.parametrize("offset", range(-3, 4))
def test_split_never_cuts_inside_a_character(thing: str, offset: int) -> None:
    # The character straddles the 2,000 boundary at every offset around it; no spaces.
    text = "a" * (MAX_MESSAGE - 2 + offset) + thing * 3 + "b" * 50
    parts = split_message(text)
    assert len(parts) == 2
    pieces_are_whole(text, parts)
    assert "".join(parts) == text


def test_split_prefers_paragraph_then_line_then_word() -> None:
    para = "word " * 300
    text = f"{para.strip()}\n\n{para.strip()}\n{FAMILY * 200}"
    parts = split_message(text)
    pieces_are_whole(text, parts)
    assert parts[0] == para.strip()  # cut at the paragraph break, not mid-paragraph


def test_a_wall_of_emoji_splits_by_what_discord_counts() -> None:
    text = FAMILY * 600  # 4,200 code points, 6,600 UTF-16 units
    parts = split_message(text)
    pieces_are_whole(text, parts)
    assert "".join(parts) == text


def test_trim_and_note_keep_whole_characters_and_the_note() -> None:
    text = "x" * 1990 + FAMILY * 5
    short = trim(text)
    assert size(short) <= MAX_MESSAGE and short.endswith("…")
    pieces_are_whole(text, [short[:-1]])
    noted = with_note(text, "\n(This was meant for <#1>, but the thread is locked.)")
    assert size(noted) <= MAX_MESSAGE and noted.endswith("locked.)")


def test_quoted_input_is_short_and_on_one_line() -> None:
    wall = ("soon\n" * 500) + FAMILY
    q = quoted(wall)
    assert len(q) <= 64 and "\n" not in q and q.startswith("“") and q.endswith("…”")
    assert quoted("tmrw") == "“tmrw”"


def test_job_text_limit_leaves_room_for_the_marker() -> None:
    limit = Limits().max_command_chars
    longest_lead_in = max(
        size(f"[DELAYED_COMMAND] {command_text(kind, '', run_kind)}")
        for kind in ("reminder", "delayed", "recurring")
        for run_kind in ("run", "follow_up")
    )
    assert longest_lead_in + limit <= MAX_MESSAGE


async def test_job_too_long_for_a_message_is_refused_saying_the_limit(engine: Engine) -> None:
    at = Schedule(Once(engine.clock().replace(year=2027)))
    target = Target(1, 100, 10)
    with pytest.raises(UserError, match="at most 1,900 characters") as refused:
        await engine.create(target=target, command="x" * 1901, kind="reminder", schedule=at)
    assert "x" * 80 not in refused.value.message  # the text is not echoed back
    # An emoji counts as Discord counts it: 200 families are 2,200 units, too long.
    with pytest.raises(UserError, match="at most 1,900"):
        await engine.create(target=target, command=FAMILY * 200, kind="reminder", schedule=at)
    ok = await engine.create(target=target, command="x" * 1900, kind="reminder", schedule=at)
    assert len(ok.command) == 1900


async def test_joiners_and_direction_marks_are_kept_in_a_job(engine: Engine) -> None:
    at = Schedule(Once(engine.clock().replace(year=2027)))
    text = f"call {FAMILY} about {HEBREW} {FLAG} caf{ACCENT}\u200c"
    job = await engine.create(target=Target(1, 100, 10), command=text, kind="reminder", schedule=at)
    assert job.command == text.strip()
    with pytest.raises(UserError, match="DELAYED_COMMAND"):  # a joiner can't hide the tag
        await engine.create(
            target=Target(1, 100, 10),
            command="[DELAYED\u200d_COMMAND] x",
            kind="reminder",
            schedule=at,
        )


def test_clean_command_drops_exactly_the_control_characters_and_the_meaningless_ones() -> None:
    import sys
    import unicodedata

    from tools.jobs.limits import clean_command

    everything = "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF)
    kept = clean_command(f"a{everything}z")
    dropped = set(everything) - set(kept)
    controls = {ch for ch in everything if unicodedata.category(ch) == "Cc"} - {"\n", "\t"}
    assert dropped == controls | {"\u200b", "\u2060", "\ufeff"}
    assert clean_command(" \x00 call\u200b mom\u200d👍\n\tnow\x7f ") == "call mom\u200d👍\n\tnow"
