"""How hot-path values are bound on SQLite: the same instant is stored as the same text
whatever zone it comes in, an import's empty columns bind like any other None, and JSON
columns are written as `json.dumps` writes them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.dialects import sqlite

from storage.db import json_text
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


@pytest.mark.parametrize(
    "value",
    [
        {"type": "once", "at": "2026-11-23T10:00:00+00:00"},
        {"rule": "FREQ=WEEKLY", "exclude": ["EXDATE:20261124T090000Z"], "n": [1, 2.5, None]},
        {"ü": '日本 \u2028 "quoted" \\ tab\t', "big": 10**30, "tiny": 1e-7, "flag": True},
        {"nan": float("nan"), "inf": float("-inf"), 1: "an int key", None: "a None key"},
        [],
        {},
        "just a string with ümlauts",
        None,
        3,
    ],
)
def test_json_columns_are_written_as_json_dumps_writes_them(value: object) -> None:
    """The JSON columns' serializer reuses one encoder; its text must be exactly
    `json.dumps`'s, or stored schedules would compare and round-trip differently."""
    assert json_text(value) == json.dumps(value)
    assert type(json_text(value)) is str


def test_a_value_json_cannot_write_is_still_refused() -> None:
    with pytest.raises(TypeError):
        json_text({"when": datetime(2026, 1, 1, tzinfo=UTC)})


def test_the_utc_fast_path_writes_what_isoformat_writes() -> None:
    """UTC values take a field-by-field path; every other zone goes through isoformat.
    Both must give the same text, or stored times would stop comparing and sorting."""
    import random

    to_text = _to_text()
    rng = random.Random(7)
    edges = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 12, 59, 59, 999999, tzinfo=UTC)]
    samples = edges + [
        datetime(2000, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.uniform(0, 2e9))
        for _ in range(500)
    ]
    for value in samples:
        want = value.replace(tzinfo=None).isoformat(" ", "microseconds")
        assert to_text(value) == want  # type: ignore[operator]
        assert to_text(value.astimezone(timezone(timedelta(hours=5)))) == want  # type: ignore[operator]
