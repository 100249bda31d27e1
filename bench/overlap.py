"""What seed 004's duplicate and same-minute checks add to creating a job through the agent.

Run: .venv/bin/python bench/overlap.py [--jobs N] [--rounds R]
Creates N open jobs of one owner in one thread (cron, intervals, rrules, monthly, one-offs;
the quota allows 50), then times `schedule_action` style checks: the duplicate scan and
the same-minute scan for a new daily job. Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import overlap
from tools.schedule import Cron, Every, Once, RRule, Schedule, Spec, spec_to_json

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


def specs() -> list[Spec]:
    return [
        Cron("0 9 * * 1-5"),
        Cron("*/5 * * * *"),
        Every(60, NOW + timedelta(minutes=1)),
        Cron("30 8 1 * *"),
        RRule("FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9;BYMINUTE=0", NOW.replace(tzinfo=None)),
        Once(NOW + timedelta(days=3)),
    ]


def jobs(n: int, same_command_every: int) -> list[Any]:
    kinds = specs()
    out = []
    for i in range(n):
        spec = kinds[i % len(kinds)]
        command = "post standup" if same_command_every and i % same_command_every == 0 else f"j{i}"
        out.append(
            SimpleNamespace(
                id=i,
                command=command,
                schedule=spec_to_json(spec),
                tz="Europe/Berlin",
                until=None,
                max_runs=None,
                run_count=0,
                next_run_at=NOW,
                status="active",
                kind="recurring",
            )
        )
    return out


def time_checks(rows: list[Any], rounds: int) -> dict[str, float]:
    new = Schedule(Cron("0 9 * * *"), "Europe/Berlin")
    took = []
    for _ in range(rounds):
        start = time.perf_counter()
        overlap.duplicates(rows, "post standup", new, NOW)
        overlap.neighbours(rows, new, NOW)
        took.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(took), 1), "max_ms": round(max(took), 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    plain = time_checks(jobs(args.jobs, 0), args.rounds)
    dupes = time_checks(jobs(args.jobs, 10), args.rounds)
    print(f"{args.jobs} jobs in the thread, no same command: {plain['median_ms']} ms median")
    print(f"{args.jobs} jobs, every 10th the same command: {dupes['median_ms']} ms median")
    print(json.dumps({"jobs": args.jobs, "distinct": plain, "with_duplicates": dupes}))


if __name__ == "__main__":
    main()
