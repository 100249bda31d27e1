"""Frozen `Job` / `Run` values for tests that need one without a database: every column
has a plain default, and a test names only what it is about."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from storage.jobs import Job, Run

AT = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def job(**values: Any) -> Job:
    defaults: dict[str, Any] = {
        "id": 1,
        "owner_id": 1,
        "guild_id": None,
        "channel_id": 1,
        "parent_channel_id": None,
        "command": "x",
        "kind": "delayed",
        "schedule": {"type": "once", "at": AT.isoformat()},
        "tz": "UTC",
        "status": "active",
        "fail_reason": None,
        "created_by": "user",
        "created_at": AT,
        "updated_at": AT,
        "next_run_at": AT,
        "claimed_slot": None,
        "run_count": 0,
        "failure_streak": 0,
        "until": None,
        "max_runs": None,
        "follow_up": None,
        "meta": None,
        "audience": None,
    }
    return Job(**(defaults | values))


def run(**values: Any) -> Run:
    defaults: dict[str, Any] = {
        "id": 1,
        "job_id": 1,
        "scheduled_for": AT,
        "kind": "run",
        "attempt": 1,
        "nonce": "r1.0",
        "claimed_at": None,
        "lease_until": None,
        "delivered_at": None,
        "executed_at": None,
        "reply_lease_until": None,
        "reply": None,
        "replied_at": None,
        "message_id": None,
        "outcome": "pending",
        "lateness_ms": None,
        "error": None,
        "details": None,
    }
    return Run(**(defaults | values))
