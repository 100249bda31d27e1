"""Discord's rate limits: the real bot against the fake Discord with those limits on.

    python -m bench.discord_limits [--jobs 500] [--threads 100] [--due-over 0] [--no-limits]

The real `HomarBot` (offline model, SQLite in a temporary directory, real clock) is
connected to the in-process fake Discord with Discord's documented limits switched on
(50 requests/s per bot; 5 messages per 5 s per channel; `X-RateLimit-*` headers, 429
with `retry_after`). N reminders over M threads fall due at once (or spread evenly over
`--due-over` seconds); each needs two messages: its marker, then its reply.

Figures (a reminder's reply is matched by the unique token in its command):

- `reply_p50_ms` / `reply_p99_ms`: due → reply stored by the fake;
- `marker_p50_ms` / `marker_p99_ms`: due → marker stored;
- `ideal_p99_ms`: the same percentile of reply times in the best schedule those limits
  allow (each job's marker then reply, as many as the global and per-channel windows
  admit, nothing else sent); `ratio` = `reply_p99_ms / ideal_p99_ms`;
- `responses_429` (of which `global_429`): responses 429 the bot received;
- `lost`: reminders whose reply never arrived (within the ideal time + `--grace` s);
- `duplicates`: extra copies of a marker or a reply.

Targets for 500 over 100 threads: ratio <= 1.1, responses_429 <= 10, lost == 0,
duplicates == 0. Human lines first, the JSON line last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOKEN = re.compile(r"\bitem-(\d{6})\b")
MARKER = "[DELAYED_COMMAND]"
TARGETS = {"ratio": 1.1, "responses_429": 10, "lost": 0, "duplicates": 0}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def ideal_reply_times(
    due: list[tuple[float, int]], *, global_per_s: int, per_channel: int, window: float
) -> list[float]:
    """Each job's earliest possible reply (seconds from the first due time) under the limits.

    `due` is (due offset, channel) per job. Fixed windows open at the first due time:
    `global_per_s` messages per second in all, `per_channel` per `window` per channel.
    Every second, the earliest-due jobs' next messages go first (marker, then reply),
    one per channel per pass, so nothing is wasted; a reply can go in the same second as
    its marker. Nothing else is sent (no typing, no retries).
    """
    pending = sorted(range(len(due)), key=lambda i: due[i][0])
    sent = [0] * len(due)  # messages of each job sent so far (0, 1 or 2)
    reply_at = [0.0] * len(due)
    used: Counter[tuple[int, int]] = Counter()  # (channel, window index) → messages
    second = 0
    while pending:
        budget = global_per_s
        progress = True
        while budget and progress:
            progress = False
            busy: set[int] = set()
            for i in pending:
                at, channel = due[i]
                if at > second + 1 or channel in busy or not budget:
                    continue
                slot = (channel, int(second // window))
                if used[slot] >= per_channel:
                    continue
                used[slot] += 1
                busy.add(channel)
                budget -= 1
                progress = True
                sent[i] += 1
                if sent[i] == 2:
                    reply_at[i] = max(float(second), at)
            pending = [i for i in pending if sent[i] < 2]
        second += 1
    return reply_at


def configure_logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR)


class Stage:
    """The real bot against the fake Discord, N reminder owners in M threads of one guild.

    `arrivals()`: per job token, when the fake stored each copy of its marker and of its
    reply in the job's thread (monotonic seconds).
    """

    def __init__(self, fake: Any, threads: int) -> None:
        self.fake = fake
        self.guild = fake.add_guild("Bench")
        self.parent = fake.add_channel(self.guild.id, "general")
        self.owners = [fake.add_user(f"user{i}") for i in range(threads)]
        for owner in self.owners:
            fake.add_member(self.guild.id, owner.id)
        self.threads = [fake.add_thread(self.parent.id, f"t{i}") for i in range(threads)]
        # Per job token, when each copy of its marker and of its reply was stored: noted
        # as the fake stores them, so reading the figures never rescans the messages.
        self.markers: dict[int, list[float]] = {}
        self.replies: dict[int, list[float]] = {}
        bot_id = fake.bot_user.id
        original_store = fake._store

        def timed_store(message: Any) -> None:
            at = time.monotonic()
            original_store(message)
            if message.author_id != bot_id or message.channel_id not in self._threads:
                return
            found = TOKEN.search(message.content)
            if found is not None:
                into = self.markers if message.content.startswith(MARKER) else self.replies
                into.setdefault(int(found.group(1)), []).append(at)

        self._threads = {thread.id for thread in self.threads}
        fake._store = timed_store

    async def remind(self, runtime: Any, job: int, at: datetime) -> None:
        """Schedule reminder `job` (its token `item-<job>`) in thread `job % M` at `at`."""
        from tools.jobs.model import Target
        from tools.schedule import Once, Schedule

        t = job % len(self.threads)
        await runtime.engine.create(
            target=Target(self.owners[t].id, self.threads[t].id, self.guild.id, self.parent.id),
            command=f"check item-{job:06d} now",
            kind="reminder",
            schedule=Schedule(Once(at)),
            check_limits=False,
        )

    def arrivals(self) -> tuple[dict[int, list[float]], dict[int, list[float]]]:
        """(markers, replies): per job token, when each copy was stored."""
        return self.markers, self.replies


@contextlib.asynccontextmanager
async def staged(tmp: Path, threads: int) -> AsyncIterator[tuple[Stage, Any, Any]]:
    """A started fake Discord with a `Stage`, and the real bot (offline model, SQLite in
    `tmp`, real clock) connected to it: yields (stage, bot, runtime)."""
    import pydantic_ai.models

    from bot.settings import load_settings
    from bot.wiring import discord_bot
    from tests.fakediscord import running_client, running_fake

    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False  # the offline model answers
    async with running_fake() as fake:
        stage = Stage(fake, threads)
        settings = load_settings(
            _env_file=None,
            discord_token="fake-token",
            discord_api_base=fake.api_base,
            discord_gateway_url=fake.gateway_url,
            database_url=f"sqlite+aiosqlite:///{tmp / 'homar.db'}",
            default_timezone="UTC",
        )
        bot = discord_bot(settings, guild_ready_timeout=0.01)
        async with running_client(bot, timeout=10.0):
            yield stage, bot, bot.runtime


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from bot.pacing import Policy

    async with staged(tmp, args.threads) as (stage, bot, runtime):
        fake = stage.fake
        budget = bot.transport.pacer.budget
        budget.policy = Policy(args.policy)
        if args.no_limits:  # nothing to pace against: measure the bot's own path
            budget.per_second = 10**6
        limits = fake.enforce_rate_limits() if not args.no_limits else None
        wall0 = datetime.now(UTC)
        mono0 = time.monotonic()
        first_due = wall0.replace(microsecond=0) + timedelta(seconds=args.lead)
        due: list[tuple[float, int]] = []  # (offset from first_due, thread index)
        for i in range(args.jobs):
            offset = args.due_over * i / args.jobs if args.due_over else 0.0
            due.append((offset, i % args.threads))
            await stage.remind(runtime, i, first_due + timedelta(seconds=offset))
        created = datetime.now(UTC)
        if created >= first_due:
            print(f"warning: creating took {(created - wall0).total_seconds():.1f} s")
        mono_due = mono0 + (first_due - wall0).total_seconds()
        ideal = ideal_reply_times(
            due,
            global_per_s=50 if limits else 10**9,
            per_channel=5 if limits else 10**9,
            window=5.0,
        )
        deadline = mono_due + max(ideal) + args.due_over + args.grace
        while time.monotonic() < deadline:
            markers, replies = stage.arrivals()
            if len(replies) >= args.jobs:
                break
            await asyncio.sleep(0.25)
        await asyncio.sleep(args.settle)  # late duplicates would show up here
        markers, replies = stage.arrivals()
        got_429 = sum(1 for r in fake.requests if r.status == 429)
        global_429 = limits.global_429 if limits else 0
        typing = len(fake.requests_matching("POST", r"/channels/\d+/typing$"))

    reply_ms = [(min(times) - mono_due - due[job][0]) * 1000 for job, times in replies.items()]
    marker_ms = [(min(times) - mono_due - due[job][0]) * 1000 for job, times in markers.items()]
    ideal_ms = [(at - due[i][0]) * 1000 for i, at in enumerate(ideal)]
    duplicates = sum(len(t) - 1 for t in replies.values()) + sum(
        len(t) - 1 for t in markers.values()
    )
    result: dict[str, Any] = {
        "jobs": args.jobs,
        "threads": args.threads,
        "due_over_s": args.due_over,
        "limits": not args.no_limits,
        "policy": args.policy,
        "reply_p50_ms": round(percentile(reply_ms, 50)),
        "reply_p99_ms": round(percentile(reply_ms, 99)),
        "marker_p50_ms": round(percentile(marker_ms, 50)),
        "marker_p99_ms": round(percentile(marker_ms, 99)),
        "ideal_p99_ms": round(percentile(ideal_ms, 99)),
        "responses_429": got_429,
        "global_429": global_429,
        "typing_requests": typing,
        "lost": args.jobs - len(replies),
        "duplicates": duplicates,
    }
    ideal_p99 = result["ideal_p99_ms"]
    result["ratio"] = round(result["reply_p99_ms"] / ideal_p99, 3) if ideal_p99 else None
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--due-over", type=float, default=0.0, help="spread due times (s)")
    parser.add_argument("--lead", type=float, default=4.0, help="seconds until the first due")
    parser.add_argument("--grace", type=float, default=30.0, help="wait past the ideal (s)")
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--no-limits", action="store_true", help="the fake without limits")
    parser.add_argument(
        "--policy", default="due-order", choices=["due-order", "markers-first"], help="pacing order"
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    configure_logging(args.verbose)
    with tempfile.TemporaryDirectory(prefix="homar-limits-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    print(
        f"{args.jobs} reminders over {args.threads} threads: reply p50 "
        f"{result['reply_p50_ms']} ms, p99 {result['reply_p99_ms']} ms (ideal "
        f"{result['ideal_p99_ms']} ms, ratio {result['ratio']}); markers p50 "
        f"{result['marker_p50_ms']} ms, p99 {result['marker_p99_ms']} ms; "
        f"{result['responses_429']} responses 429 ({result['global_429']} global); "
        f"{result['typing_requests']} typing requests; {result['lost']} lost, "
        f"{result['duplicates']} duplicates"
    )
    checks = []
    for key, target in TARGETS.items():
        value = result[key]
        ok = value is not None and value <= target
        checks.append(f"{key} {'ok' if ok else 'MISSED'} ({value} vs {target})")
    print("targets: " + "; ".join(checks))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
