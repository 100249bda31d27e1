"""The fake's rate-limit switch: Discord's documented limits, headers and 429s."""

from __future__ import annotations

import aiohttp

from tests.fakediscord import running_fake
from tests.fakediscord.ratelimits import RateLimits

SEND = "/channels/{}/messages"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def limits(clock: Clock, **kwargs: float) -> RateLimits:
    return RateLimits(clock=clock, wall=lambda: 1_000_000.0 + clock.now, **kwargs)  # type: ignore[arg-type]


def test_five_messages_per_channel_window_then_429_with_retry_after() -> None:
    clock = Clock()
    rl = limits(clock)
    seen = [rl.check("POST", SEND.format(7)) for _ in range(5)]
    assert all(v.allowed for v in seen)
    assert [v.headers["X-RateLimit-Remaining"] for v in seen] == ["4", "3", "2", "1", "0"]
    assert seen[0].headers["X-RateLimit-Limit"] == "5"
    assert seen[0].headers["X-RateLimit-Bucket"] == RateLimits.BUCKET
    assert seen[0].headers["X-RateLimit-Reset-After"] == "5.000"
    clock.now += 2.0
    over = rl.check("POST", SEND.format(7))
    assert not over.allowed and not over.is_global
    assert over.retry_after == 3.0
    assert over.headers["X-RateLimit-Scope"] == "user"
    assert over.headers["X-RateLimit-Reset"] == f"{1_000_000.0 + 105.0:.3f}"
    assert "X-RateLimit-Global" not in over.headers
    # Another channel has its own bucket; the first one refills when its window ends.
    assert rl.check("POST", SEND.format(8)).allowed
    clock.now += 3.0
    assert rl.check("POST", SEND.format(7)).headers["X-RateLimit-Remaining"] == "4"
    assert rl.responses_429 == 1 and rl.global_429 == 0


def test_global_limit_counts_every_route_but_interactions() -> None:
    clock = Clock()
    rl = limits(clock, global_per_second=3)
    assert rl.check("POST", "/channels/1/typing").allowed
    assert rl.check("GET", "/users/5").allowed
    assert rl.check("POST", SEND.format(1)).allowed
    assert rl.check("POST", "/interactions/9/tok/callback").allowed  # exempt
    over = rl.check("POST", SEND.format(2))
    assert not over.allowed and over.is_global
    assert over.headers["X-RateLimit-Global"] == "true"
    assert over.headers["X-RateLimit-Scope"] == "global"
    assert over.retry_after == 1.0
    clock.now += 1.0
    assert rl.check("POST", SEND.format(2)).allowed
    assert rl.global_429 == 1


async def test_switched_on_the_server_answers_discord_style() -> None:
    async with running_fake() as fake:
        guild = fake.add_guild()
        channel = fake.add_channel(guild.id)
        assert fake.rate_limits is None  # off by default
        fake.enforce_rate_limits(messages_per_channel=2, channel_window=60.0)
        url = f"{fake.api_base}/channels/{channel.id}/messages"
        async with aiohttp.ClientSession() as http:
            statuses = []
            for i in range(3):
                async with http.post(url, json={"content": f"m{i}"}) as resp:
                    statuses.append(resp.status)
                    last_headers, last_body = resp.headers, await resp.json()
            assert statuses == [200, 200, 429]
            assert last_body["retry_after"] > 59 and last_body["global"] is False
            assert last_headers["X-RateLimit-Remaining"] == "0"
            assert last_headers["Retry-After"] == "60"
        assert [m.content for m in fake.messages(channel.id)] == ["m0", "m1"]
        assert fake.rate_limits is not None and fake.rate_limits.responses_429 == 1
