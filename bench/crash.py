"""Crash bench: SIGKILL the real bot (`python -m bot run`) at random moments, many times.

    python -m bench.crash [--jobs 600] [--cycles 30] [--seed N]

Runs against the in-process fake Discord on a temporary SQLite file (see
`tests/reliability/crashkit.py`), then prints a human line and, last, the JSON line
`{"cycles", "jobs", "lost", "duplicates", ...}`. A job is delivered only when its answer
(after the marker) was posted exactly once; `lost`/`duplicates` count answers,
`marker_lost`/`marker_duplicates` the markers, `refeed_kills` the kills that landed
between a marker and its answer. Target: all four counts 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


async def main(jobs: int, cycles: int, seed: int | None) -> dict[str, int]:
    from tests.reliability.crashkit import crash_run

    with tempfile.TemporaryDirectory(prefix="homar-crash-") as tmp:
        report = await crash_run(
            Path(tmp), jobs=jobs, cycles=cycles, seed_value=seed, finish_timeout=600
        )
    print(
        f"{report.cycles} kills ({report.refeed_kills} between a marker and its answer), "
        f"{report.jobs} jobs in {report.seconds} s: {report.lost} answers lost, "
        f"{report.duplicates} duplicated; markers {report.marker_lost} lost, "
        f"{report.marker_duplicates} duplicated ({report.dedup_hits} re-sends answered by "
        f"nonce, {report.unfinished} jobs not recorded as completed)"
    )
    return report.summary()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=600)
    parser.add_argument("--cycles", type=int, default=30)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.jobs, args.cycles, args.seed))))
