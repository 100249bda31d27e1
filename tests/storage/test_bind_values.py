"""How hot-path values are bound on SQLite: the same instant is stored as the same text
whatever zone it comes in, and an import's empty columns bind like any other None."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.dialects import sqlite

from storage.models import UTCDateTime
from storage.prepared import _processed
from tools.message_size import size


def _to_text() -> object:
    process = UTCDateTime().bind_processor(sqlite.dialect())
    assert process is not None
    return process


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 11, 24, 7, 5, 3, 120, tzinfo=UTC),
        datetime(2026, 11, 24, 8, 5, 3, 120, tzinfo=ZoneInfo("Europe/Berlin")),
        datetime(2026, 11, 24, 2, 5, 3, 120, tzinfo=timezone(timedelta(hours=-5))),
        datetime(2026, 11, 24, 7, 5, 3, 120, tzinfo=ZoneInfo("UTC")),
    ],
)
def test_an_instant_is_one_text_in_any_zone(value: datetime) -> None:
    to_text = _to_text()
    assert to_text(value) == "2026-11-24 07:05:03.000120"  # type: ignore[operator]


def test_whole_seconds_keep_their_microseconds_field() -> None:
    to_text = _to_text()
    assert to_text(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02 03:04:05.000000"  # type: ignore[operator]


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError):
        _to_text()(datetime(2026, 1, 2, 3, 4, 5))  # type: ignore[operator]


def test_processed_columns() -> None:
    calls: list[object] = []

    def process(v: object) -> object:
        calls.append(v)
        return "null" if v is None else f"<{v}>"

    assert _processed([None, None, None], process) == ["null"] * 3
    assert _processed([], process) == []
    shared = {"a": 1}
    assert _processed([shared, shared, None, 2], process) == ["<{'a': 1}>"] * 2 + ["null", "<2>"]
    assert calls == [None, shared, None, 2]  # once per run of the same object


@pytest.mark.parametrize(
    ("text", "units"), [("call mom", 8), ("", 0), ("café", 4), ("🎉 party", 8), ("a\u200db", 3)]
)
def test_message_size_counts_utf16_units(text: str, units: int) -> None:
    assert size(text) == units == len(text.encode("utf-16-le")) // 2
