"""Seed 004: the same command on an overlapping schedule is asked about; same-minute jobs noted."""

from __future__ import annotations

from datetime import timedelta

from pydantic_ai.messages import TextPart

from storage.models import JobStatus
from tests.tools.conftest import FIXED_NOW
from tests.tools.test_agent import approved, ask, call
from tools import overlap
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.scheduling import HomarDeps
from tools.jobs.model import Target
from tools.schedule import Cron, Every, Once, Schedule

TZ = "Europe/Berlin"


async def standup(deps: HomarDeps, expr: str = "0 9 * * 1-5", command: str = "post standup") -> int:
    job = await deps.engine.create(
        target=deps.target, command=command, schedule=Schedule(Cron(expr), TZ), kind="recurring"
    )
    return job.id


def test_duplicates_need_a_shared_minute_or_the_same_period() -> None:
    now = FIXED_NOW
    weekdays = Schedule(Cron("0 9 * * 1-5"), TZ)
    daily = Schedule(Cron("0 9 * * *"), TZ)
    mondays = Schedule(Cron("0 9 * * 1"), TZ)
    tuesdays = Schedule(Cron("0 9 * * 2"), TZ)
    assert overlap.run_minutes(weekdays, now) & overlap.run_minutes(daily, now)
    assert overlap.run_minutes(mondays, now) & overlap.run_minutes(weekdays, now)
    assert not overlap.run_minutes(mondays, now) & overlap.run_minutes(tuesdays, now)
    a = Schedule(Every(300, now + timedelta(seconds=60)), TZ)
    b = Schedule(Every(300, now + timedelta(seconds=120)), TZ)
    assert not overlap.run_minutes(a, now) & overlap.run_minutes(b, now)
    assert overlap._same_period(a, b)


def test_answers_are_read() -> None:
    assert overlap.choice_of("replace") == "replace"
    assert overlap.choice_of("Yes, replace it.") == "replace"
    assert overlap.choice_of("keep both") == "keep_both"
    assert overlap.choice_of("both please") == "keep_both"
    assert overlap.choice_of("cancel") == "cancel"
    assert overlap.choice_of("never mind") == "cancel"
    assert overlap.choice_of("cancel 12") is None  # that's a cancel command
    assert overlap.choice_of("replace the lightbulb tomorrow at 9") is None


async def test_same_command_overlapping_schedule_is_asked(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    old = await standup(deps)
    r = await ask(
        runtime,
        deps,
        "every day at 9 post standup",
        call("schedule_action", description="Post standup", type="recurring", schedule="0 9 * * *"),
        TextPart("ok"),
    )
    assert r.approval is None and not r.job_ids
    assert f"You already have #{old} “post standup” every weekday at 09:00" in r.text
    assert "replace it, keep both, or cancel?" in r.text
    assert len(await deps.engine.list_jobs(owner_id=deps.user_id)) == 1


async def test_different_days_are_not_duplicates(runtime: AgentKit, deps: HomarDeps) -> None:
    await standup(deps, "0 9 * * 1")
    r = await approved(
        runtime,
        deps,
        "x",
        call("schedule_action", description="post standup", type="recurring", schedule="0 9 * * 2"),
    )
    assert len(r.job_ids) == 1 and "already have" not in r.text


async def test_other_thread_or_owner_is_not_a_duplicate(runtime: AgentKit, deps: HomarDeps) -> None:
    await deps.engine.create(
        target=Target(deps.user_id, 999, deps.guild_id),
        command="call mom",
        schedule=Schedule(Once(FIXED_NOW + timedelta(hours=2)), TZ),
        kind="reminder",
    )
    r = await ask(
        runtime,
        deps,
        "x",
        call("schedule_reminder", reminder_time="in 2 hours", message="call mom"),
    )
    assert len(r.job_ids) == 1


async def test_replace_in_the_next_turn(runtime: AgentKit, deps: HomarDeps) -> None:
    """The real model reads the question from the thread memory and calls again."""
    old = await standup(deps)
    args = {"description": "post standup", "type": "recurring", "schedule": "weekdays@09:00"}
    r = await ask(
        runtime,
        deps,
        "weekdays at 9 post standup",
        call("schedule_action", **args),
        TextPart("You already have it."),
    )
    assert "replace it, keep both, or cancel?" in r.text and "on_duplicate" not in r.text
    seen = r.script.messages[-1]
    assert "on_duplicate='replace'" in str(seen[-1])  # the model is told how to answer
    r = await ask(
        runtime,
        deps,
        "replace",
        call("schedule_action", **args, on_duplicate="replace"),
        TextPart("Done."),
    )
    assert r.approval is not None and f"Replaces #{old}" in r.approval.message()
    done = await resume_approval(runtime, r.approval, True, deps)
    (new,) = done.job_ids
    assert (await deps.engine.get(old)).status == JobStatus.CANCELLED
    assert (await deps.engine.get(new)).status == JobStatus.ACTIVE
    assert f"Replaces #{old}" in done.text


async def test_keep_both_creates_the_exact_duplicate(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime, deps, "x", call("schedule_reminder", reminder_time="18:00", message="stretch")
    )
    (first,) = r.job_ids
    r = await ask(
        runtime, deps, "x", call("schedule_reminder", reminder_time="18:00", message="stretch")
    )
    assert not r.job_ids and f"#{first} “stretch”" in r.text
    r = await ask(
        runtime,
        deps,
        "keep both",
        call(
            "schedule_reminder", reminder_time="18:00", message="stretch", on_duplicate="keep_both"
        ),
    )
    assert len(r.job_ids) == 1
    assert len(await deps.engine.list_jobs(owner_id=deps.user_id)) == 2
    assert f"Heads-up: #{first} “stretch”" in r.text  # and it lands in the same minute


async def test_same_minute_is_mentioned_not_blocked(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime, deps, "x", call("schedule_reminder", reminder_time="18:00", message="stretch")
    )
    (first,) = r.job_ids
    r = await ask(
        runtime,
        deps,
        "x",
        call("send_scheduled_message", message="water the plants", scheduled_datetime="18:00"),
    )
    assert len(r.job_ids) == 1
    job = await deps.engine.get(first)
    unix = int(job.next_run_at.timestamp())  # type: ignore[union-attr]
    assert f"Heads-up: #{first} “stretch” at <t:{unix}:F> also runs at <t:{unix}:F>" in r.text
    r = await ask(
        runtime,
        deps,
        "x",
        call("send_scheduled_message", message="feed the cat", scheduled_datetime="18:01"),
    )
    assert "Heads-up" not in r.text


async def test_offline_model_answers_in_the_next_turn(runtime: AgentKit, deps: HomarDeps) -> None:
    old = await standup(deps, "0 8 * * 1-5", "stretch")
    r = await run_agent(runtime, "every weekday at 8 stretch", deps)
    assert "replace it, keep both, or cancel?" in r.text and r.approval is None
    r = await run_agent(runtime, "cancel", deps)
    assert "scheduled nothing new" in r.text
    assert len(await deps.engine.list_jobs(owner_id=deps.user_id)) == 1
    r = await run_agent(runtime, "every weekday at 8 stretch", deps)
    r = await run_agent(runtime, "replace it", deps)
    assert r.approval is not None
    done = await resume_approval(runtime, r.approval, True, deps)
    assert len(done.job_ids) == 1 and (await deps.engine.get(old)).status == "cancelled"
    r = await run_agent(runtime, "replace", deps)  # no question pending: not an answer
    assert not r.job_ids and r.approval is None


async def test_approval_proposal_mentions_same_minute(runtime: AgentKit, deps: HomarDeps) -> None:
    other = await standup(deps, "0 9 * * 1-5", "post standup")
    r = await ask(
        runtime,
        deps,
        "x",
        call("schedule_action", description="water plants", type="recurring", schedule="0 9 * * *"),
        TextPart("Done."),
    )
    assert r.approval is not None and f"Heads-up: #{other}" in r.approval.message()


def test_neighbours_find_dense_and_sparse_jobs_in_the_same_minute() -> None:
    from types import SimpleNamespace

    from tools.schedule import RRule, spec_to_json

    now = FIXED_NOW  # Monday 16:00 in Berlin

    def job(i: int, spec: object, until: object = None) -> object:
        return SimpleNamespace(
            id=i,
            command=f"j{i}",
            schedule=spec_to_json(spec),  # type: ignore[arg-type]
            tz=TZ,
            until=until,
            max_runs=None,
            run_count=0,
            next_run_at=now,
            status="active",
            kind="recurring",
        )

    rows = [
        job(1, Every(60, now + timedelta(seconds=30))),  # every minute, off the minute
        job(2, Cron("0 9 * * 1-5")),
        job(3, Cron("30 8 1 * *")),  # never at 09:00
        job(4, RRule("FREQ=WEEKLY;BYDAY=WE;BYHOUR=9;BYMINUTE=0", now.replace(tzinfo=None))),
        job(5, Every(7200, now + timedelta(minutes=7))),  # :07 past even hours
        job(6, Cron("0 9 * * *"), until=now + timedelta(hours=1)),  # ends before 09:00
    ]
    found = overlap.neighbours(rows, Schedule(Cron("0 9 * * *"), TZ), now)  # type: ignore[arg-type]
    tomorrow_nine = FIXED_NOW.replace(hour=8) + timedelta(days=1)  # 09:00 Berlin, UTC
    assert [(n.job.id, n.at) for n in found] == [
        (1, tomorrow_nine),
        (2, tomorrow_nine),
        (4, tomorrow_nine + timedelta(days=1)),
    ]
