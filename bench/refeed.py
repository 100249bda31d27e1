"""The re-feed path: due → marker → its echo re-fed to the agent → reply, and what it costs.

    python -m bench.refeed [--scenario spread|burst|both] [--profile FILE] [--top 25]

The real `HomarBot` (offline model, SQLite in a temporary directory, real clock) against
the in-process fake Discord without rate limits, so what is measured is the bot's own
path. Two scenarios from issue 22:

- `spread`: 100 reminders over a minute (`--spread-jobs`, `--spread-seconds`);
  target due → reply p99 <= 50 ms;
- `burst`: 50 reminders due at once (`--burst-jobs`); target due → reply p99 <= 300 ms.

Before each measured set a few reminders are fired and answered unmeasured (`--warmup`),
so first-use costs (imports, compiled statements, the first agent run) stay out.

Per fired run, over the measured window (first due → last reply): `statements` (SQL
statements sent to the database, counted with SQLAlchemy's `before_cursor_execute`),
`transactions` (commits), and `cpu_ms` (this process's CPU time, which includes the
in-process fake Discord and the client's gateway parsing). `--profile FILE` also writes
cProfile stats of that window and prints the top functions by cumulative and own time.

Human lines first, the JSON line last. Note the machine's load (`uptime`) with figures.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.discord_limits import TOKEN, percentile, staged  # noqa: E402

TARGETS = {"spread_reply_p99_ms": 50.0, "burst_reply_p99_ms": 300.0}
WARM_BASE = 900_000  # warm-up reminders' tokens start here (never mistaken for measured)


class StatementCounter:
    """Counts what reaches the database while `on`: SQL statements seen by SQLAlchemy
    (`before_cursor_execute`), commits, and every statement the SQLite driver runs
    (its trace callback: the prepared hot-path statements and BEGIN/COMMIT too)."""

    def __init__(self, db: Any) -> None:
        from sqlalchemy import event

        self.on = False
        self.statements: Counter[str] = Counter()
        self.driver: Counter[str] = Counter()
        self.commits = 0
        engines = [db.engine.sync_engine, *getattr(db, "_sync_engines", [])]
        for engine in engines:
            event.listen(engine, "before_cursor_execute", self._statement)
            event.listen(engine, "commit", self._commit)
        for engine in getattr(db, "_sync_engines", []):  # one connection each (StaticPool)
            raw = engine.raw_connection()
            raw.driver_connection.set_trace_callback(self._trace)
            raw.close()

    def _statement(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if self.on:
            self.statements[_shape(statement)] += 1

    def _trace(self, statement: str) -> None:
        if self.on:
            self.driver[_shape(statement)] += 1

    def _commit(self, _conn: Any) -> None:
        if self.on:
            self.commits += 1

    def reset(self) -> None:
        self.statements.clear()
        self.driver.clear()
        self.commits = 0


def _shape(statement: str) -> str:
    """A statement's kind and table, e.g. 'UPDATE job_runs' or 'SELECT … FROM jobs'."""
    flat = " ".join(statement.split())
    verb = flat.split(" ", 1)[0].upper()
    table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+\"?(\w+)", flat, re.IGNORECASE)
    return f"{verb} {table.group(1) if table else '?'}"


class Stages:
    """When each fired run reached each step of the re-feed path (monotonic seconds),
    by job token: wraps the bot's own steps on this instance only."""

    NAMES = ("echo", "taken", "agent_start", "agent_end", "post_start", "recorded")

    def __init__(self, bot: Any, runtime: Any) -> None:
        self.at: dict[str, dict[int, float]] = {name: {} for name in self.NAMES}
        self._run: dict[int, int] = {}  # run id → job token
        self._echo: dict[str, float] = {}  # nonce → when its echo arrived
        refeed, take, fired = bot.refeed, runtime.take_run, runtime.fired
        post, replied = bot.post, runtime.store.replied

        async def timed_refeed(nonce: str) -> bool:
            self._echo[nonce] = time.monotonic()  # the marker's echo reached the bot
            return bool(await refeed(nonce))

        async def timed_take(nonce: str) -> Any:
            taken = await take(nonce)
            if taken is not None:
                run, job = taken
                found = TOKEN.search(job.command)
                if found is not None:
                    token = int(found.group(1))
                    self._run[run.id] = token
                    self._note("echo", token, self._echo.pop(nonce, time.monotonic()))
                    self._note("taken", token, time.monotonic())
            return taken

        async def timed_fired(run: Any, job: Any) -> Any:
            self._mark("agent_start", run.id)
            reply = await fired(run, job)
            self._mark("agent_end", run.id)
            return reply

        async def timed_post(*args: Any, nonce: str | None = None, **kwargs: Any) -> Any:
            if nonce is not None and nonce.startswith("a"):
                self._mark("post_start", int(nonce[1:].split(".")[0], 16))
            return await post(*args, nonce=nonce, **kwargs)

        async def timed_replied(run_id: int, *args: Any, **kwargs: Any) -> bool:
            done = bool(await replied(run_id, *args, **kwargs))
            self._mark("recorded", run_id)
            return done

        bot.refeed, runtime.take_run, runtime.fired = timed_refeed, timed_take, timed_fired
        bot.post, runtime.store.replied = timed_post, timed_replied

    def _note(self, name: str, token: int, at: float) -> None:
        self.at[name].setdefault(token, at)

    def _mark(self, name: str, run_id: int) -> None:
        token = self._run.get(run_id)
        if token is not None:
            self._note(name, token, time.monotonic())


async def scenario(
    args: argparse.Namespace, tmp: Path, *, jobs: int, over: float, name: str
) -> dict[str, Any]:
    async with staged(tmp, args.threads) as (stage, bot, runtime):
        bot.transport.pacer.budget.per_second = 10**6  # no limits to pace against
        counter = StatementCounter(runtime.db)
        stages = Stages(bot, runtime)
        # Warm up: a few reminders fired and answered before anything is measured.
        soon = datetime.now(UTC) + timedelta(seconds=0.5)
        for i in range(args.warmup):
            await stage.remind(runtime, WARM_BASE + i, soon)
        await _until(stage, range(WARM_BASE, WARM_BASE + args.warmup), 30.0)

        wall0 = datetime.now(UTC)
        mono0 = time.monotonic()
        first_due = wall0.replace(microsecond=0) + timedelta(seconds=args.lead)
        offsets = [over * i / jobs if over else 0.0 for i in range(jobs)]
        for i, offset in enumerate(offsets):
            await stage.remind(runtime, i, first_due + timedelta(seconds=offset))
        if datetime.now(UTC) >= first_due:
            print(f"warning: creating took {(datetime.now(UTC) - wall0).total_seconds():.1f} s")
        mono_due = mono0 + (first_due - wall0).total_seconds()
        profile = cProfile.Profile() if args.profile else None
        await asyncio.sleep(max(0.0, mono_due - time.monotonic() - 0.05))
        counter.reset()
        counter.on = True
        cpu0 = time.process_time()
        if profile is not None:
            profile.enable()
        await _until(stage, range(jobs), over + args.grace)
        if profile is not None:
            profile.disable()
        cpu = time.process_time() - cpu0
        counter.on = False
        await asyncio.sleep(args.settle)  # late duplicates would show up here
        markers, replies = stage.arrivals()

    measured = range(jobs)
    reply_ms = [(min(replies[j]) - mono_due - offsets[j]) * 1000 for j in measured if j in replies]
    marker_ms = [(min(markers[j]) - mono_due - offsets[j]) * 1000 for j in measured if j in markers]
    duplicates = sum(len(replies.get(j, [])) + len(markers.get(j, [])) for j in measured)
    duplicates -= len([j for j in measured if j in replies]) + len(
        [j for j in measured if j in markers]
    )
    steps = {"marker": {j: min(t) for j, t in markers.items()}, **stages.at}
    steps["reply"] = {j: min(t) for j, t in replies.items()}
    timeline = {
        step: round(
            percentile([(at[j] - mono_due - offsets[j]) * 1000 for j in measured if j in at], 50),
            1,
        )
        for step, at in steps.items()
    }
    statements = sum(counter.statements.values())
    driver = sum(counter.driver.values())
    result = {
        f"{name}_jobs": jobs,
        f"{name}_reply_p50_ms": round(percentile(reply_ms, 50), 1),
        f"{name}_reply_p99_ms": round(percentile(reply_ms, 99), 1),
        f"{name}_marker_p50_ms": round(percentile(marker_ms, 50), 1),
        f"{name}_marker_p99_ms": round(percentile(marker_ms, 99), 1),
        f"{name}_statements_per_run": round(statements / jobs, 1),
        f"{name}_commits_per_run": round(counter.commits / jobs, 1),
        f"{name}_driver_statements_per_run": round(driver / jobs, 1),
        f"{name}_cpu_ms_per_run": round(cpu * 1000 / jobs, 1),
        f"{name}_lost": jobs - len([j for j in measured if j in replies]),
        f"{name}_duplicates": duplicates,
    }
    print(
        f"{name}: {jobs} reminders over {over:.0f} s: reply p50 "
        f"{result[f'{name}_reply_p50_ms']} ms, p99 {result[f'{name}_reply_p99_ms']} ms; "
        f"marker p50 {result[f'{name}_marker_p50_ms']} ms, p99 "
        f"{result[f'{name}_marker_p99_ms']} ms; per run {result[f'{name}_statements_per_run']} "
        f"statements via SQLAlchemy, {result[f'{name}_driver_statements_per_run']} "
        f"via the driver, {result[f'{name}_commits_per_run']} commits, "
        f"{result[f'{name}_cpu_ms_per_run']} ms CPU"
    )
    print("  due → each step, p50 ms: " + ", ".join(f"{k} {v}" for k, v in timeline.items()))
    print("  SQLite driver statements per run (prepared, BEGIN and COMMIT included):")
    for shape, count in counter.driver.most_common(args.top):
        print(f"  {count / jobs:6.2f}/run  {shape}")
    if profile is not None:
        path = f"{args.profile}.{name}"
        profile.dump_stats(path)
        for key in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(key).print_stats(args.top)
            print(f"--- {name}: top {args.top} by {key} (stats in {path})")
            print(out.getvalue().split("\n\n", 2)[-1].rstrip())
    return result


async def _until(stage: Any, jobs: range, timeout: float) -> None:
    """Wait until every job in `jobs` has its reply (or `timeout` seconds pass)."""
    wanted = set(jobs)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, replies = stage.arrivals()
        if wanted <= replies.keys():
            return
        await asyncio.sleep(0.05)


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"load": round(os.getloadavg()[0], 2)}
    if args.scenario in ("spread", "both"):
        result |= await scenario(
            args, tmp / "spread", jobs=args.spread_jobs, over=args.spread_seconds, name="spread"
        )
    if args.scenario in ("burst", "both"):
        result |= await scenario(args, tmp / "burst", jobs=args.burst_jobs, over=0.0, name="burst")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="both", choices=["spread", "burst", "both"])
    parser.add_argument("--spread-jobs", type=int, default=100)
    parser.add_argument("--spread-seconds", type=float, default=60.0)
    parser.add_argument("--burst-jobs", type=int, default=50)
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--lead", type=float, default=2.0, help="seconds until the first due")
    parser.add_argument("--grace", type=float, default=30.0, help="wait past the last due (s)")
    parser.add_argument("--settle", type=float, default=1.0)
    parser.add_argument("--profile", help="write cProfile stats of each window to FILE.<name>")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="homar-refeed-") as tmp:
        for name in ("spread", "burst"):
            (Path(tmp) / name).mkdir()
        result = asyncio.run(run(args, Path(tmp)))
    checks = []
    for key, target in TARGETS.items():
        if key in result:
            ok = result[key] <= target
            checks.append(f"{key} {'ok' if ok else 'MISSED'} ({result[key]} vs {target})")
    print("targets: " + "; ".join(checks))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
