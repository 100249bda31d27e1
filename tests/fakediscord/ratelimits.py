"""Discord's documented rate limits, for the fake (off unless switched on).

https://discord.com/developers/docs/topics/rate-limits: every bot may make 50 requests
per second in all (the *global* limit; interaction endpoints are exempt), and each route
has its own buckets, keyed by the route's bucket hash plus its major parameter (the
channel): sending messages allows 5 per 5 s per channel. Every response of a limited
route carries ``X-RateLimit-Limit / -Remaining / -Reset / -Reset-After / -Bucket``; a
request over a limit gets 429 with ``retry_after`` in the body, ``Retry-After`` and
``X-RateLimit-Scope``, and ``X-RateLimit-Global: true`` when it was the global limit.

Windows are fixed: a bucket opens with its first request and is full again
``window`` seconds later, which is how Discord's ``X-RateLimit-Reset`` behaves.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# Requests Discord does not count against the global limit.
EXEMPT = re.compile(r"^/(interactions|webhooks)/")
SEND_MESSAGE = re.compile(r"^/channels/(\d+)/messages$")


@dataclass
class Window:
    """A fixed window: `limit` requests from `opened` until `opened + length`."""

    limit: int
    length: float
    opened: float = -math.inf
    used: int = 0

    def refresh(self, now: float) -> None:
        if now >= self.opened + self.length:
            self.opened, self.used = now, 0

    def reset_after(self, now: float) -> float:
        return max(0.0, self.opened + self.length - now)


@dataclass(frozen=True)
class Verdict:
    """What the limiter says about one request: allowed (with headers) or 429."""

    allowed: bool
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: float = 0.0
    is_global: bool = False


class RateLimits:
    """The fake's limiter: global per bot, plus the per-channel message bucket."""

    BUCKET = "f3b1c0de5e7d0a11"  # the send-message route's bucket hash (opaque to clients)

    def __init__(
        self,
        *,
        global_per_second: int = 50,
        messages_per_channel: int = 5,
        channel_window: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.global_per_second = global_per_second
        self.messages_per_channel = messages_per_channel
        self.channel_window = channel_window
        self.clock = clock
        self.wall = wall
        self._global = Window(global_per_second, 1.0)
        self._channels: dict[int, Window] = {}
        self.responses_429 = 0
        self.global_429 = 0

    def check(self, method: str, path: str) -> Verdict:
        """Count one request; the verdict carries the headers the response must have."""
        now = self.clock()
        if not EXEMPT.match(path):
            self._global.refresh(now)
            if self._global.used >= self._global.limit:
                wait = self._global.reset_after(now)
                self.responses_429 += 1
                self.global_429 += 1
                return Verdict(False, self._limited_headers(wait, "global"), wait, True)
            self._global.used += 1
        match = SEND_MESSAGE.match(path) if method == "POST" else None
        if match is None:
            return Verdict(True)
        channel = int(match.group(1))
        window = self._channels.get(channel)
        if window is None:
            window = self._channels[channel] = Window(
                self.messages_per_channel, self.channel_window
            )
        window.refresh(now)
        if window.used >= window.limit:
            wait = window.reset_after(now)
            self.responses_429 += 1
            headers = self._bucket_headers(window, now) | self._limited_headers(wait, "user")
            return Verdict(False, headers, wait)
        window.used += 1
        return Verdict(True, self._bucket_headers(window, now))

    def _bucket_headers(self, window: Window, now: float) -> dict[str, str]:
        after = window.reset_after(now)
        return {
            "X-RateLimit-Limit": str(window.limit),
            "X-RateLimit-Remaining": str(window.limit - window.used),
            "X-RateLimit-Reset": f"{self.wall() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": self.BUCKET,
        }

    @staticmethod
    def _limited_headers(wait: float, scope: str) -> dict[str, str]:
        headers = {
            "Retry-After": str(math.ceil(wait)),
            "X-RateLimit-Scope": scope,
            "Via": "1.1 google",  # discord.py takes a 429 without it for a Cloudflare ban
        }
        if scope == "global":
            headers["X-RateLimit-Global"] = "true"
        return headers
