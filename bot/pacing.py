"""One delivery budget for everything the bot sends to Discord: pace, don't collide.

Discord allows a bot 50 requests per second in all (the global limit) and, per route,
buckets it announces in each response's `X-RateLimit-*` headers (sending messages: 5
per 5 s per channel). discord.py honours a route bucket only once it has seen it, per
request, and the global limit only after a 429: a burst of due jobs over many threads
runs into the global wall, thousands of 429s, and retries that give up.

Here every HTTP attempt (discord.py's own retries included) waits for a grant from one
`Budget`: a one-second window for the global limit (see `GLOBAL_MARGIN`), and route
buckets learned from the headers (their hash per route, their limit, what remains, when
they refill). Who goes next is decided by order, not by who asked first:

- a request is ordered by its *order time*: a delivery (marker) by its job's due time,
  anything else (a reply, a conversation) by the moment it asked. So every marker due
  in a burst goes before any reply of that burst, and a reply goes before markers due
  after it was ready. Why not every waiting marker first (`Policy.MARKERS_FIRST`)?
  Under a sustained stream of due jobs that starves every reply until the stream
  stops, while serving the earliest-due work first keeps the worst lateness lowest.
  `bench/discord_limits.py --due-over S --policy …` compares the two; on a loaded
  2-core machine their figures were within the run-to-run noise;
- within one order time, round-robin across channels: a thread's n-th request waits
  for every other thread's (n-1)-th, so one busy thread cannot starve the others;
- a request whose route bucket is exhausted waits for its refill without holding up
  requests for other channels.

Typing indicators are dropped while anything waits for the budget: they are cosmetic
and would cost a global request each. Interaction callbacks and follow-ups are exempt
from the global limit (Discord says so) and pass straight through.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import contextvars
import itertools
import logging
import math
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

log = logging.getLogger(__name__)

GLOBAL_PER_SECOND = 50  # Discord's documented global limit per bot
# A request holds its place in the global window from its grant until a second after
# its response (plus this margin for clock granularity): Discord counted it somewhere in
# between, so however the requests were delayed on the way, no window of Discord's can
# hold more than the limit.
GLOBAL_MARGIN = 0.005
UNKNOWN_RESET = math.inf  # a bucket whose current window's end no response has told yet
EXEMPT_PREFIXES = ("/interactions/", "/webhooks/")
PRUNE_AT = 4096  # route buckets kept before refilled ones are forgotten


class Policy(StrEnum):
    """How requests of different kinds are ordered (see the module docstring)."""

    DUE_ORDER = "due-order"  # by order time: a reply goes before markers due after it
    MARKERS_FIRST = "markers-first"  # every waiting marker before any other request


@dataclass
class Bucket:
    """A route bucket as Discord last described it, minus what we have sent since."""

    limit: int
    remaining: int
    reset_at: float = UNKNOWN_RESET
    in_flight: int = 0


@dataclass(eq=False)
class Ticket:
    """One HTTP attempt waiting for (or holding) a grant."""

    route: str  # discord.py's route key, e.g. "POST /channels/{channel_id}/messages"
    major: str  # its major parameters (the channel, guild or webhook)
    order_at: float  # epoch seconds: a marker's due time, else when it asked
    marker: bool = False
    rank: int = 0
    seq: int = 0
    bucket: tuple[str, str] | None = None  # the bucket charged when granted
    charged: bool = False  # holds a place in the global window
    granted_at: float = 0.0
    granted: asyncio.Future[None] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Lane:
    """What the code sending a request knows about it (set around a send)."""

    order_at: float
    marker: bool = False


_lane: contextvars.ContextVar[Lane | None] = contextvars.ContextVar("homar_lane", default=None)
_route: contextvars.ContextVar[discord.http.Route | None] = contextvars.ContextVar(
    "homar_route", default=None
)


@contextlib.contextmanager
def marker_lane(due: datetime) -> Iterator[None]:
    """Requests made inside are a marker's, ordered by the job's due time."""
    token = _lane.set(Lane(order_at=due.timestamp(), marker=True))
    try:
        yield
    finally:
        _lane.reset(token)


class Budget:
    """The pacing decisions, without I/O: who may send now, and when to look again.

    `clock` is monotonic seconds; `wall` gives the order time of requests that ask now.
    """

    def __init__(
        self,
        *,
        per_second: int = GLOBAL_PER_SECOND,
        margin: float = GLOBAL_MARGIN,
        policy: Policy = Policy.DUE_ORDER,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.per_second = per_second
        self.margin = margin
        self.policy = policy
        self.clock = clock
        self.wall = wall
        self._out = 0  # granted, no response yet: each holds a place in the global window
        self._freed_at: deque[float] = deque()  # when answered requests leave the window
        self._global_until = 0.0  # after a global 429: nothing before this
        self._hashes: dict[str, str] = {}  # route key → Discord's bucket hash
        self._limits: dict[str, int] = {}  # bucket hash → its limit (same for every channel)
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self._probing: set[tuple[str, str]] = set()  # unknown buckets with one request out
        self._queue: list[Ticket] = []
        self._ranks: Counter[tuple[float, str]] = Counter()
        self._seq = itertools.count()
        self.responses_429 = 0

    # ------------------------------------------------------------ asking

    def ticket(self, route: str, major: str, lane: Lane | None = None) -> Ticket:
        """A new ticket for an attempt at `route` (ordered by `lane`, else by now)."""
        order_at = lane.order_at if lane is not None else self.wall()
        key = (order_at, major)
        rank = self._ranks[key]
        self._ranks[key] += 1
        marker = lane.marker if lane is not None else False
        return Ticket(route, major, order_at, marker, rank, next(self._seq))

    def submit(self, ticket: Ticket) -> None:
        bisect.insort(self._queue, ticket, key=self._order)

    def withdraw(self, ticket: Ticket) -> None:
        """A waiting ticket gave up (its task was cancelled)."""
        if ticket in self._queue:
            self._queue.remove(ticket)
            self._drained()

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def congested(self) -> bool:
        """Whether anything waits, or more than half the global window is spoken for."""
        return bool(self._queue) or self._global_room(self.clock()) < self.per_second / 2

    # ------------------------------------------------------------ granting

    def grant(self) -> list[Ticket]:
        """Grant every waiting ticket that may go now, best first."""
        now = self.clock()
        granted: list[Ticket] = []
        room = self._global_room(now)
        if room <= 0:
            return granted
        blocked: set[tuple[str, str]] = set()
        waiting: list[Ticket] = []
        for ticket in self._queue:
            key = self._key(ticket)
            if room <= 0 or key in blocked or not self._may_send(key, now):
                blocked.add(key)  # later tickets of this bucket wait too: keep their order
                waiting.append(ticket)
                continue
            self._charge(ticket, key, now)
            granted.append(ticket)
            room -= 1
        self._queue = waiting
        self._drained()
        return granted

    def wake_at(self) -> float | None:
        """When waiting tickets may next be granted (monotonic), if nothing else happens."""
        if not self._queue:
            return None
        now = self.clock()
        times: list[float] = []
        if now < self._global_until:
            times.append(self._global_until)
        elif self._global_room(now) <= 0 and self._freed_at:
            times.append(self._freed_at[0])
        for ticket in self._queue:
            bucket = self._buckets.get(self._key(ticket))
            if bucket is not None and bucket.remaining <= 0 and bucket.reset_at != UNKNOWN_RESET:
                times.append(bucket.reset_at)
        # Nothing to wait for but responses in flight: they call `done`, which re-grants.
        return max(min(times), now) if times else None

    # ------------------------------------------------------------ learning

    def done(self, ticket: Ticket, status: int, headers: Mapping[str, str]) -> None:
        """A response to a granted ticket: learn the route bucket and any 429."""
        now = self.clock()
        key = self._release(ticket)
        bucket_hash = headers.get("X-RateLimit-Bucket")
        if bucket_hash is not None and self._hashes.get(ticket.route) != bucket_hash:
            self._hashes[ticket.route] = bucket_hash
            learned = (bucket_hash, ticket.major)
            old = self._buckets.pop(key, None) if key != learned else None
            if old is not None and learned not in self._buckets:
                self._buckets[learned] = old
            elif old is not None:
                self._buckets[learned].in_flight += old.in_flight
            key = learned
        if status == 429:
            self.responses_429 += 1
            wait = _seconds(headers.get("Retry-After")) or 1.0
            if headers.get("X-RateLimit-Global", "").lower() == "true":
                self._global_until = max(self._global_until, now + wait)
                log.warning("global rate limit hit; nothing is sent for %.2f s", wait)
                return
            limited = _seconds(headers.get("X-RateLimit-Reset-After")) or wait
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(limit=1, remaining=0)
            bucket.remaining, bucket.reset_at = 0, now + limited
            log.info("route %s (%s) limited for %.2f s", ticket.route, ticket.major, limited)
            return
        if "X-RateLimit-Remaining" not in headers or "X-RateLimit-Limit" not in headers:
            return
        limit = int(headers["X-RateLimit-Limit"])
        left = int(headers["X-RateLimit-Remaining"])
        after = _seconds(headers.get("X-RateLimit-Reset-After"))
        reset_at = now + after if after is not None else UNKNOWN_RESET
        if bucket_hash is not None:
            self._limits[bucket_hash] = limit
        bucket = self._buckets.get(key)
        if bucket is None:
            self._prune(now)
            self._buckets[key] = Bucket(limit, left, reset_at)
            return
        # Requests still in flight may not be counted in `left` yet: count them as spent.
        fresh = max(0, left - bucket.in_flight)
        # A window we knew nothing of yet, or a newer one, or a different limit than we
        # guessed: the response is the truth. Otherwise the lowest count wins (responses
        # of one window can arrive out of order).
        unknown = bucket.reset_at == UNKNOWN_RESET or bucket.limit != limit
        newer = not unknown and reset_at > bucket.reset_at + 0.5
        bucket.remaining = fresh if unknown or newer else min(bucket.remaining, fresh)
        bucket.limit = limit
        if reset_at != UNKNOWN_RESET:
            if unknown or newer:
                bucket.reset_at = reset_at
            else:
                bucket.reset_at = max(bucket.reset_at, reset_at)

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled and have nothing out: a bucket of a known hash
        starts full anyway, so a bot that posts in many threads doesn't keep them all."""
        if len(self._buckets) < PRUNE_AT:
            return
        for key, bucket in list(self._buckets.items()):
            if not bucket.in_flight and bucket.reset_at <= now and key[0] in self._limits:
                del self._buckets[key]

    def failed(self, ticket: Ticket) -> None:
        """A granted attempt got no response (connection error, cancelled): give it back."""
        key = self._release(ticket)
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.remaining = min(bucket.limit, bucket.remaining + 1)

    # ------------------------------------------------------------ internals

    def _order(self, ticket: Ticket) -> tuple[Any, ...]:
        first = 0 if (self.policy == Policy.MARKERS_FIRST and ticket.marker) else 1
        return (first, ticket.order_at, ticket.rank, ticket.seq)

    def _drained(self) -> None:
        # Ranks count a channel's requests per order time while any request waits; once
        # none does, a new burst starts its round-robin afresh.
        if not self._queue:
            self._ranks.clear()

    def _key(self, ticket: Ticket) -> tuple[str, str]:
        return (self._hashes.get(ticket.route, ticket.route), ticket.major)

    def _global_room(self, now: float) -> int:
        if now < self._global_until:
            return 0
        while self._freed_at and self._freed_at[0] <= now:
            self._freed_at.popleft()
        return self.per_second - self._out - len(self._freed_at)

    def _may_send(self, key: tuple[str, str], now: float) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            limit = self._limits.get(key[0])
            if limit is None:  # never seen: one request at a time until Discord tells
                return key not in self._probing
            # Same bucket hash as a channel we know: a channel not used yet is full.
            self._prune(now)
            bucket = self._buckets[key] = Bucket(limit, limit)
        if bucket.reset_at != UNKNOWN_RESET and now >= bucket.reset_at:
            bucket.remaining = max(0, bucket.limit - bucket.in_flight)
            bucket.reset_at = UNKNOWN_RESET
        elif bucket.remaining <= 0 and bucket.reset_at == UNKNOWN_RESET and not bucket.in_flight:
            return True  # exhausted, and no response will say when it refills: probe
        return bucket.remaining > 0

    def _charge(self, ticket: Ticket, key: tuple[str, str], now: float) -> None:
        ticket.bucket = key
        ticket.charged = True
        ticket.granted_at = now
        self._out += 1
        bucket = self._buckets.get(key)
        if bucket is None:
            self._probing.add(key)
            return
        bucket.remaining -= 1
        bucket.in_flight += 1

    def _release(self, ticket: Ticket) -> tuple[str, str]:
        if ticket.charged:
            ticket.charged = False
            self._out -= 1
            self._freed_at.append(self.clock() + 1.0 + self.margin)
        key = ticket.bucket or self._key(ticket)
        ticket.bucket = None
        self._probing.discard(key)
        bucket = self._buckets.get(key)
        if bucket is not None and bucket.in_flight > 0:
            bucket.in_flight -= 1
        return key


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class Unmetered:
    """Stands in for discord.py's per-route `Ratelimit`: the budget meters every attempt."""

    remaining = 1

    async def __aenter__(self) -> Unmetered:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def update(self, response: aiohttp.ClientResponse, *, use_clock: bool = False) -> None:
        return None


UNMETERED = Unmetered()


class Pacer:
    """The async side of `Budget`: tickets wait on futures, a timer re-grants.

    `install(http)` puts every request of a discord.py `HTTPClient` through it; call it
    before the client logs in (the aiohttp session is created at login).
    """

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self._timer: asyncio.TimerHandle | None = None

    async def acquire(self, route: str, major: str) -> Ticket:
        """Wait for a grant for one attempt at `route`; the caller must `done` or `failed`."""
        budget = self.budget
        ticket = budget.ticket(route, major, _lane.get())
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ticket.granted = future
        budget.submit(ticket)
        self.pump()  # granted at once if it may go now
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                budget.failed(ticket)
            else:
                budget.withdraw(ticket)
            self.pump()
            raise
        return ticket

    def done(self, ticket: Ticket, status: int, headers: Mapping[str, str]) -> None:
        self.budget.done(ticket, status, headers)
        self.pump()

    def failed(self, ticket: Ticket) -> None:
        self.budget.failed(ticket)
        self.pump()

    def pump(self) -> None:
        """Grant what may go now and set the timer for the next chance."""
        self._resolve(self.budget.grant())
        self._schedule()

    def _resolve(self, tickets: Iterable[Ticket]) -> None:
        for ticket in tickets:
            if ticket.granted is not None and not ticket.granted.done():
                ticket.granted.set_result(None)
            elif ticket.granted is not None:  # its waiter is gone: give the grant back
                self.budget.failed(ticket)

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        at = self.budget.wake_at()
        if at is None:
            return
        delay = max(0.0, at - self.budget.clock())
        self._timer = asyncio.get_running_loop().call_later(delay, self.pump)

    # ------------------------------------------------------------ discord.py

    def install(self, http: discord.http.HTTPClient) -> None:
        """Pace every HTTP attempt `http` makes; drop typing while the budget is busy.

        discord.py's own per-route limiter is replaced by the budget: it would otherwise
        queue a channel's requests first-come first-served before they reach the budget,
        and hold a caller until a bucket refills after its last request.
        """
        trace = http.http_trace or aiohttp.TraceConfig()
        trace.on_request_start.append(self._on_start)
        trace.on_request_end.append(self._on_end)
        trace.on_request_exception.append(self._on_exception)
        http.http_trace = trace
        request = http.request
        send_typing = http.send_typing

        async def routed(route: discord.http.Route, **kwargs: Any) -> Any:
            token = _route.set(route)
            try:
                return await request(route, **kwargs)
            finally:
                _route.reset(token)

        async def typing_if_idle(channel_id: str | int) -> None:
            if self.budget.congested():
                return  # cosmetic; a real message needs that request more
            await send_typing(channel_id)

        http.request = routed  # type: ignore[method-assign]
        http.get_ratelimit = lambda key: UNMETERED  # type: ignore[method-assign,assignment,return-value]
        http.send_typing = typing_if_idle  # type: ignore[method-assign]

    async def _on_start(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        route = _route.get()
        if route is None or route.path.startswith(EXEMPT_PREFIXES):
            ctx.ticket = None
            return
        ctx.ticket = await self.acquire(route.key, route.major_parameters)

    async def _on_end(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        ticket: Ticket | None = getattr(ctx, "ticket", None)
        if ticket is not None:
            ctx.ticket = None
            self.done(ticket, params.response.status, params.response.headers)

    async def _on_exception(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        ticket: Ticket | None = getattr(ctx, "ticket", None)
        if ticket is not None:
            ctx.ticket = None
            self.failed(ticket)
