"""Benchmark for tools.timeparse against the time-phrase corpora.

Run: .venv/bin/python bench/timeparse.py [--data DIR] [--verbose]
Prints strict/core/tz-variant accuracy, negatives parsed, recurrence accuracy on the
unambiguous subset and per-phrase latency, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.timeparse import parse_instant, parse_recurrence  # noqa: E402

GRAINS = {
    "second": timedelta(seconds=1),
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
}


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def grain_end(start: datetime, grain: str) -> datetime:
    """End of the grain window starting at `start` (month/year step the calendar)."""
    if grain in GRAINS:
        return start + GRAINS[grain]
    if grain == "month":
        y, m = divmod(start.year * 12 + start.month, 12)
        return start.replace(year=y, month=m + 1)
    if grain == "quarter":
        y, m = divmod(start.year * 12 + start.month + 2, 12)
        return start.replace(year=y, month=m + 1)
    return start.replace(year=start.year + 1)


def subsets(row: dict[str, Any]) -> tuple[bool, bool]:
    tags = set(row.get("tags") or [])
    core = not tags & {"holiday", "latent"}
    strict = core and not tags & {"part_of_day", "questionable"}
    return core, strict


def instant_ok(row: dict[str, Any], got: datetime | None) -> bool:
    if got is None or row.get("expected") is None:
        return False
    start = datetime.fromisoformat(row["expected"])
    return start <= got < grain_end(start, row["grain"])


class Timer:
    def __init__(self) -> None:
        self.samples: list[float] = []

    def run(self, fn: Any, *args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        self.samples.append((time.perf_counter() - t0) * 1000)
        return out


def score_instants(rows: list[dict[str, Any]], timer: Timer, fails: list[str]) -> dict[str, float]:
    hit = {"core": 0, "strict": 0}
    tot = {"core": 0, "strict": 0}
    for row in rows:
        core, strict = subsets(row)
        if not core:
            continue
        now = datetime.fromisoformat(row["reference_time"])
        got = timer.run(parse_instant, row["phrase"], now=now, tz=row["tz"])
        ok = instant_ok(row, got)
        for name, member in (("core", core), ("strict", strict)):
            if member:
                tot[name] += 1
                hit[name] += ok
        if not ok:
            fails.append(
                f"{row['phrase']!r} [{row['tz']}] want {row['expected']} "
                f"({row['grain']}) got {got.isoformat() if got else None}"
                f"{' (pod/questionable)' if not strict else ''}"
            )
    return {k: hit[k] / tot[k] if tot[k] else 0.0 for k in tot}


def recurrence_ok(row: dict[str, Any], sched: Any) -> bool:
    if sched is None:
        return False
    expected = [datetime.fromisoformat(x) for x in row["expected_next"][:5]]
    now = datetime.fromisoformat(row["reference_time"])
    try:
        runs = sched.next_runs(now, len(expected))
    except Exception:
        return False
    if len(runs) != len(expected):
        return False
    zone = ZoneInfo(row["tz"])
    if row["compare"] == "minute":
        return all(
            a.astimezone(zone).replace(second=0, microsecond=0)
            == b.astimezone(zone).replace(second=0, microsecond=0)
            for a, b in zip(runs, expected, strict=True)
        )
    if row["compare"] == "date":
        return all(
            a.astimezone(zone).date() == b.astimezone(zone).date()
            for a, b in zip(runs, expected, strict=True)
        )
    gaps_a = [b - a for a, b in pairwise(runs)]
    gaps_b = [b - a for a, b in pairwise(expected)]
    return gaps_a == gaps_b


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    data = args.data
    if data is None:
        data = ROOT.parent / "shared" / "data" / "timeparse"
        if not data.is_dir():
            data = ROOT / "tests" / "data" / "timeparse"
    timer = Timer()
    fails: list[str] = []
    main_scores = score_instants(load(data / "duckling_en_time.jsonl"), timer, fails)
    tz_fails: list[str] = []
    tz_scores = score_instants(load(data / "duckling_en_time_tz_variants.jsonl"), timer, tz_fails)
    neg_parsed = []
    for row in load(data / "duckling_en_time_negative.jsonl"):
        now = datetime.fromisoformat(row["reference_time"])
        got = timer.run(parse_instant, row["phrase"], now=now, tz=row["tz"])
        rec = parse_recurrence(row["phrase"], now=now, tz=row["tz"])
        if got is not None or rec is not None:
            neg_parsed.append(f"{row['phrase']!r} -> {got or rec}")
    rec_hit = rec_tot = 0
    rec_fails: list[str] = []
    for row in load(data / "recurrence_en.jsonl"):
        if "ambiguous_anchor" in (row.get("tags") or []):
            continue
        now = datetime.fromisoformat(row["reference_time"])
        sched = timer.run(parse_recurrence, row["phrase"], now=now, tz=row["tz"])
        ok = recurrence_ok(row, sched)
        rec_tot += 1
        rec_hit += ok
        if not ok:
            got = sched.next_runs(now, 3) if sched is not None else None
            rec_fails.append(
                f"{row['phrase']!r} want {row['expected_next'][:3]} got "
                f"{[g.isoformat() for g in got] if got else None} "
                f"{getattr(sched, 'spec', None)}"
            )
    samples = sorted(timer.samples)
    median = statistics.median(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    result = {
        "strict": round(main_scores["strict"], 4),
        "core": round(main_scores["core"], 4),
        "tz_variants": round(tz_scores["core"], 4),
        "negatives_parsed": len(neg_parsed),
        "recurrence_unambiguous": round(rec_hit / rec_tot if rec_tot else 0.0, 4),
        "median_ms": round(median, 4),
        "p99_ms": round(p99, 4),
    }
    print(f"data: {data}")
    print(f"strict accuracy:        {result['strict']:.1%}")
    print(f"core accuracy:          {result['core']:.1%}")
    print(f"tz-variant accuracy:    {result['tz_variants']:.1%}")
    print(f"negatives parsed:       {len(neg_parsed)}")
    print(f"recurrence unambiguous: {result['recurrence_unambiguous']:.1%} ({rec_hit}/{rec_tot})")
    print(f"latency median / p99:   {median:.3f} ms / {p99:.3f} ms")
    if args.verbose:
        print("\n-- instant failures (core) --")
        print("\n".join(fails))
        print("\n-- tz-variant failures --")
        print("\n".join(tz_fails))
        print("\n-- negatives parsed --")
        print("\n".join(neg_parsed))
        print("\n-- recurrence failures --")
        print("\n".join(rec_fails))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
