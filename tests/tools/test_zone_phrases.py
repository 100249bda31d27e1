"""Zones named inside time phrases ("3pm Tokyo time", "9am in Berlin")."""

from __future__ import annotations

import pytest

from tools.schedule.zones import ZonedPhrase, split_zone


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("3pm Tokyo time", ZonedPhrase("3pm", "Asia/Tokyo")),
        ("at 9 Berlin time", ZonedPhrase("at 9", "Europe/Berlin")),
        ("tomorrow 9am in Tokyo", ZonedPhrase("tomorrow 9am", "Asia/Tokyo")),
        ("friday noon in Sao Paulo", ZonedPhrase("friday noon", "America/Sao_Paulo")),
        ("at 8 PST time", ZonedPhrase("at 8", "America/Los_Angeles")),
        ("10:30 in UTC+2", None),  # an offset with digits first is not read as a place
        ("in 20 minutes", None),
        ("3pm Narnia time", None),
        ("tokyo time", None),  # no time left once the zone is taken out
    ],
)
def test_split_zone(typed: str, expected: ZonedPhrase | None) -> None:
    assert split_zone(typed) == expected
