"""The delivery budget: Discord's limits as the headers state them, fair order, 429s."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import discord
import pytest

from bot.pacing import Budget, Lane, Pacer, Policy, Ticket, marker_lane
from tests.fakediscord import running_client, running_fake

SEND = "POST /channels/{channel_id}/messages"
DUE = datetime(2026, 11, 23, 8, 0, tzinfo=UTC).timestamp()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.wall = DUE

    def __call__(self) -> float:
        return self.now


def budget(clock: Clock, **kwargs: object) -> Budget:
    return Budget(clock=clock, wall=lambda: clock.wall, margin=0.0, **kwargs)  # type: ignore[arg-type]


def headers(remaining: int, *, limit: int = 5, after: float = 5.0) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset-After": str(after),
        "X-RateLimit-Bucket": "abc123",
    }


def ask(b: Budget, channel: str, lane: Lane | None = None) -> Ticket:
    ticket = b.ticket(SEND, channel, lane)
    b.submit(ticket)
    return ticket


def answer(b: Budget, tickets: list[Ticket], remaining: int = 4) -> None:
    for t in tickets:
        b.done(t, 200, headers(remaining))


def test_route_buckets_are_learned_from_headers_and_refill_on_reset() -> None:
    clock = Clock()
    b = budget(clock)
    first = ask(b, "1")
    second = ask(b, "1")
    # Nothing known about the bucket yet: one request at a time until Discord says.
    assert b.grant() == [first]
    b.done(first, 200, headers(4))
    rest = [ask(b, "1") for _ in range(4)]
    assert b.grant() == [second, *rest[:3]]  # 4 remained
    answer(b, [second, *rest[:3]], remaining=0)
    assert b.grant() == []
    assert b.wake_at() == pytest.approx(clock.now + 5.0)
    clock.now += 5.0
    assert b.grant() == [rest[3]]
    # Another channel on the same route (same bucket hash) starts with a full bucket.
    other = [ask(b, "2") for _ in range(5)]
    assert b.grant() == other


def test_markers_due_together_go_round_robin_across_channels() -> None:
    clock = Clock()
    b = budget(clock, per_second=3)
    lane = Lane(order_at=DUE, marker=True)
    b.done(b.ticket(SEND, "0"), 200, headers(4))  # learn the bucket's limit
    clock.now += 2.0
    busy = [ask(b, "A", lane) for _ in range(4)]
    quiet = [ask(b, "B", lane), ask(b, "C", lane)]
    order: list[Ticket] = []
    for _ in range(3):
        granted = b.grant()
        order += granted
        answer(b, granted)
        clock.now += 1.0
    assert order == [busy[0], quiet[0], quiet[1], busy[1], busy[2], busy[3]]


def test_a_burst_markers_go_before_its_replies_and_replies_before_later_markers() -> None:
    clock = Clock()
    b = budget(clock, per_second=1)
    clock.wall = DUE + 0.2  # a reply that became ready just after the burst was due
    reply = ask(b, "A")
    burst = [ask(b, ch, Lane(order_at=DUE, marker=True)) for ch in "BC"]
    later = ask(b, "D", Lane(order_at=DUE + 5.0, marker=True))
    order = []
    for _ in range(4):
        granted = b.grant()
        order += granted
        for t in granted:
            b.done(t, 200, {})
        clock.now += 1.0
    assert order == [*burst, reply, later]


def test_markers_first_policy_puts_every_marker_before_any_reply() -> None:
    clock = Clock()
    b = budget(clock, per_second=1, policy=Policy.MARKERS_FIRST)
    clock.wall = DUE + 0.2
    reply = ask(b, "A")
    later = ask(b, "D", Lane(order_at=DUE + 5.0, marker=True))
    assert b.grant() == [later]
    b.done(later, 200, {})
    clock.now += 1.0
    assert b.grant() == [reply]


def test_the_global_window_holds_each_request_until_a_second_after_its_response() -> None:
    clock = Clock()
    b = budget(clock, per_second=2)
    tickets = [ask(b, str(i)) for i in range(3)]
    assert b.grant() == tickets[:2]
    clock.now += 1.5  # no response yet: they still count
    assert b.grant() == []
    b.done(tickets[0], 200, {})
    assert b.grant() == []
    assert b.wake_at() == pytest.approx(clock.now + 1.0)
    clock.now += 1.0
    assert b.grant() == [tickets[2]]


def test_a_global_429_stops_everything_for_retry_after() -> None:
    clock = Clock()
    b = budget(clock)
    first = ask(b, "1")
    assert b.grant() == [first]
    b.done(first, 429, {"Retry-After": "2", "X-RateLimit-Global": "true"})
    retry = ask(b, "9")
    assert b.grant() == []
    assert b.wake_at() == pytest.approx(clock.now + 2.0)
    clock.now += 2.0
    assert b.grant() == [retry]
    assert b.responses_429 == 1


def test_a_route_429_blocks_only_that_bucket() -> None:
    clock = Clock()
    b = budget(clock)
    first = ask(b, "1")
    b.grant()
    b.done(first, 429, headers(0) | {"Retry-After": "3", "X-RateLimit-Reset-After": "2.5"})
    again, elsewhere = ask(b, "1"), ask(b, "2")
    assert b.grant() == [elsewhere]
    clock.now += 2.5
    assert b.grant() == [again]


def test_congestion_and_withdrawn_tickets() -> None:
    clock = Clock()
    b = budget(clock, per_second=2)
    assert not b.congested()
    t = ask(b, "1")
    assert b.congested()
    b.withdraw(t)
    assert not b.congested() and b.waiting == 0


async def test_pacer_grants_waiters_when_the_budget_frees() -> None:
    clock = Clock()
    pacer = Pacer(budget(clock, per_second=1))
    first = await pacer.acquire(SEND, "1")
    waiter = asyncio.ensure_future(pacer.acquire(SEND, "2"))
    await asyncio.sleep(0)
    assert not waiter.done()
    pacer.done(first, 200, {})
    clock.now += 1.0
    pacer.pump()
    second = await asyncio.wait_for(waiter, 1)
    assert second.major == "2"
    cancelled = asyncio.ensure_future(pacer.acquire(SEND, "3"))
    await asyncio.sleep(0)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert pacer.budget.waiting == 0


async def test_discord_py_requests_go_through_the_budget_and_429s_are_retried() -> None:
    async with running_fake() as fake:
        guild = fake.add_guild()
        channel = fake.add_channel(guild.id)
        client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.01)
        pacer = Pacer()
        pacer.install(client.http)
        async with running_client(client):
            fake.enforce_rate_limits()
            target = client.get_partial_messageable(channel.id)
            fake.inject_fault("POST", r"/channels/\d+/messages$", status=429, retry_after=0.01)
            with marker_lane(datetime.now(UTC)):
                sent = await target.send("paced", nonce="n-1")
            await target.typing()  # nothing waits: typing goes
            assert sent.content == "paced"
            assert [m.content for m in fake.messages(channel.id)] == ["paced"]
            statuses = [r.status for r in fake.requests_matching("POST", r"/messages$")]
            assert statuses == [429, 200]
            assert pacer.budget.responses_429 == 1
            assert fake.requests_matching("POST", r"/typing$")
            # What the fake's headers said is now the bucket's state: 4 of 5 left.
            key = (fake.rate_limits.BUCKET if fake.rate_limits else "", str(channel.id))
            assert pacer.budget._buckets[key].remaining == 4


def test_refilled_buckets_are_forgotten_once_there_are_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.pacing.PRUNE_AT", 3)
    clock = Clock()
    b = budget(clock)
    for channel in "ABCD":
        t = ask(b, channel)
        assert b.grant() == [t]
        b.done(t, 200, headers(4))
    busy = ask(b, "E")
    b.grant()
    clock.now += 5.0  # every bucket so far has refilled; E's request is still out
    b.done(ask_and_grant(b, "F"), 200, headers(4))
    assert set(k[1] for k in b._buckets) == {"E", "F"}
    b.done(busy, 200, headers(4))


def ask_and_grant(b: Budget, channel: str) -> Ticket:
    t = ask(b, channel)
    assert b.grant() == [t]
    return t
