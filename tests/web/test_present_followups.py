"""How a reminder's follow-up state reads on the dashboard (`bot.web.present.follow_up_words`)."""

from __future__ import annotations

from typing import Any

from bot.web.present import follow_up_words
from storage.jobs import Job
from tests.values import job
from tools.jobs.model import AWAITING, SNOOZED


def reminder(meta: dict[str, Any] | None) -> Job:
    return job(kind="reminder", follow_up={"interval_s": 1800, "max": 2}, meta=meta)


def test_waiting_counts_the_reminder_and_follow_ups_sent() -> None:
    first = reminder({AWAITING: {"attempt": 2, "of": 3}})  # only the reminder went out
    assert follow_up_words(first, "UTC") == (
        "every 30 min, up to 2 times — waiting for your answer (1 sent)"
    )
    later = reminder({AWAITING: {"attempt": 3, "of": 3}})  # and one follow-up
    assert follow_up_words(later, "UTC", own=False).endswith(
        "waiting for the owner's answer (2 sent)"
    )


def test_snoozed_and_idle() -> None:
    assert follow_up_words(reminder({SNOOZED: {"choice": "1h"}}), "UTC").endswith(" — snoozed")
    assert follow_up_words(reminder(None), "UTC") == "every 30 min, up to 2 times"


def test_a_damaged_attempt_reads_as_the_first_follow_up_not_a_crash() -> None:
    # A row written by hand or by an older release may hold anything there; the page must
    # still render (the lifecycle reads it the same way through `Awaiting.parse`).
    for attempt in (None, "soon", [2]):
        job = reminder({AWAITING: {"attempt": attempt}})
        assert follow_up_words(job, "UTC").endswith("waiting for your answer (1 sent)")
