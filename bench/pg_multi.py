"""Several dispatcher processes sharing one PostgreSQL database.

    HOMAR_TEST_PG_URL=postgresql+asyncpg://homar:homar@127.0.0.1/homar_test \\
        python -m bench.pg_multi [--processes 2] [--jobs 5000] [--spread 5]

Creates a scratch database next to the one named (dropped afterwards), starts the
worker processes (`tests/reliability/pg_worker.py`: the real dispatcher, claims and
NOTIFY wake-ups, a recording transport), seeds the jobs due over `--spread` seconds and
waits until all are done. Prints a human line and, last, the JSON line
`{"processes", "jobs", "lost", "duplicates", "p99_ms"}` (p99 of real-clock lateness).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


async def main(processes: int, jobs: int, spread: float) -> dict[str, Any]:
    from sqlalchemy.engine import make_url

    from tests.conftest import PG_ENV, _admin
    from tests.reliability.pgkit import multi_run

    admin = os.environ.get(PG_ENV) or os.environ.get("DATABASE_URL", "")
    if not admin.startswith("postgresql+asyncpg://"):
        sys.exit(f"Set {PG_ENV}=postgresql+asyncpg://user:pass@host/db (a server to use).")
    name = f"homar_bench_{uuid.uuid4().hex[:10]}"
    await _admin(admin, f'CREATE DATABASE "{name}"')
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    try:
        with tempfile.TemporaryDirectory(prefix="homar-pg-") as tmp:
            report = await multi_run(url, Path(tmp), processes=processes, jobs=jobs, spread=spread)
    finally:
        await _admin(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(
        f"{report.processes} processes, {report.jobs} jobs: {report.lost} lost, "
        f"{report.duplicates} duplicates, p99 lateness {report.p99_ms} ms"
    )
    return report.summary()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--spread", type=float, default=5.0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.processes, args.jobs, args.spread))))
