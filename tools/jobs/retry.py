"""What happens after a failed delivery: retry the same run, give up on it, and when a
recurring job that keeps failing is reported to its owner or paused."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class RetryPolicy:
    window: timedelta = timedelta(minutes=15)  # a run is retried this long after its claim
    max_backoff: timedelta = timedelta(seconds=300)
    pause_after: int = 10  # failed runs in a row before a recurring job is paused
    notify_after: int = 3  # failed runs in a row before its owner hears about it (once)

    def retry_at(self, first_claimed: datetime, attempt: int, now: datetime) -> datetime | None:
        """When to try the same run again (same nonce), or None to give up on it."""
        if now - first_claimed >= self.window:
            return None
        backoff = timedelta(seconds=min(2 ** min(attempt, 8), self.max_backoff.total_seconds()))
        return min(now + backoff, first_claimed + self.window)

    def pauses(self, streak: int) -> bool:
        return streak >= self.pause_after

    def tells_owner(self, streak: int, *, paused_now: bool) -> bool:
        """Whether this streak is the one the owner hears about: at the notify threshold,
        and once more when it pauses the job."""
        return streak == self.notify_after or (paused_now and streak == self.pause_after)
