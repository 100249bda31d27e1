"""Zone names people type → IANA names."""

from __future__ import annotations

import pytest

from tools.schedule.zones import offset_zone, resolve_zone, spans_zones, suggest_zones


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("Berlin", "Europe/Berlin"),
        ("berlin", "Europe/Berlin"),
        ("europe/berlin", "Europe/Berlin"),
        ("New York", "America/New_York"),
        ("PST", "America/Los_Angeles"),
        ("cet", "Europe/Berlin"),
        ("UTC", "UTC"),
        ("UTC+2", "Etc/GMT-2"),
        ("utc-5", "Etc/GMT+5"),
        ("GMT+0", "UTC"),
        ("+5:30", "Asia/Kolkata"),
        ("Tokyo", "Asia/Tokyo"),
        ("Buenos Aires", "America/Argentina/Buenos_Aires"),
    ],
)
def test_resolve_zone(typed: str, zone: str) -> None:
    assert resolve_zone(typed) == zone


@pytest.mark.parametrize("typed", ["", "Narnia", "UTC+20", "+5:17"])
def test_unknown_zones(typed: str) -> None:
    assert resolve_zone(typed) is None


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        # a country with one offset: the zone of its biggest city, not a legacy link
        ("Japan", "Asia/Tokyo"),
        ("Poland", "Europe/Warsaw"),
        ("Ukraine", "Europe/Kyiv"),
        ("Spain", "Europe/Madrid"),
        ("the UK", "Europe/London"),
        ("England", "Europe/London"),
        ("the Netherlands", "Europe/Amsterdam"),
        ("South Korea", "Asia/Seoul"),
        ("Germany time", "Europe/Berlin"),
        # the North American zone names after the country's
        ("US Pacific", "America/Los_Angeles"),
        ("U.S. Eastern time", "America/New_York"),
        ("Canada Central", "America/Chicago"),
    ],
)
def test_countries_and_qualified_regions(typed: str, zone: str) -> None:
    assert resolve_zone(typed) == zone


@pytest.mark.parametrize("typed", ["the US", "USA", "Australia", "Canada", "Brazil", "Russia"])
def test_a_country_of_several_zones_needs_a_city(typed: str) -> None:
    assert resolve_zone(typed) is None and spans_zones(typed)
    assert not spans_zones("Japan") and not spans_zones("Narnia")


def test_offset_sign_is_inverted_for_etc_zones() -> None:
    assert offset_zone("UTC+10") == "Etc/GMT-10"
    assert offset_zone("UTC-10") == "Etc/GMT+10"


def test_suggestions_put_the_resolved_zone_first() -> None:
    assert suggest_zones("berl")[0] == "Europe/Berlin"
    assert suggest_zones("PST")[0] == "America/Los_Angeles"
    assert len(suggest_zones("a")) == 25
    assert "UTC" in suggest_zones("")


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        # a country's people, said for its time
        ("Irish time", "Europe/Dublin"),
        ("irish", "Europe/Dublin"),
        ("Korean time", "Asia/Seoul"),
        ("Japanese time", "Asia/Tokyo"),
        ("German time", "Europe/Berlin"),
        ("British time", "Europe/London"),
    ],
)
def test_a_countrys_people_name_its_zone(text: str, zone: str) -> None:
    assert resolve_zone(text) == zone


@pytest.mark.parametrize("text", ["American time", "Australian time", "Narnian time"])
def test_a_people_of_several_zones_or_none_names_no_zone(text: str) -> None:
    assert resolve_zone(text) is None
