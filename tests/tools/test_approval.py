"""Agent-proposed jobs wait for approval: proposal text, decisions, expiry, restart, loop hazard."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pydantic_ai.messages import TextPart, ToolCallPart

from storage.approvals import ApprovalStore
from storage.db import Database
from tests.tools.conftest import FIXED_NOW, scripted
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.scheduling import HomarDeps
from tools.approval import Approvals, render_proposal
from tools.schedule import Cron, Schedule

EVERY_MINUTE = ToolCallPart(
    "schedule_action", {"description": "ping", "type": "recurring", "schedule": "* * * * *"}
)


def test_proposal_shows_raw_command_zone_end_and_five_runs() -> None:
    sched = Schedule(Cron("0 8 * * 1-5"), "Europe/Berlin", max_runs=7)
    text = render_proposal("**bold** @everyone ```x``` <@&5>", sched, FIXED_NOW)
    assert "```\n**bold** @everyone '''x''' <@&5>\n```" in text
    assert "Europe/Berlin" in text and "at most 7 runs" in text and text.count("<t:") == 5


async def test_approve_deny_and_persisted_restart(
    runtime: AgentKit, deps: HomarDeps, db: Database
) -> None:
    runtime = replace(runtime, approvals=Approvals(ApprovalStore(db)))
    with runtime.agent.override(model=scripted(EVERY_MINUTE, TextPart("ok"))):
        r = await run_agent(runtime, "ping me every minute", deps)
        assert r.approval is not None and r.approval.approval_id > 0 and not r.job_ids
        assert await deps.engine.list_jobs(owner_id=1) == []
        # a "restart": a fresh Approvals over the same database decides and resumes
        fresh = Approvals(ApprovalStore(db))
        other = await fresh.decide(r.approval.approval_id, user_id=2, approved=True, now=FIXED_NOW)
        assert not other.ok and "Only the person" in other.message
        got = await fresh.decide(r.approval.approval_id, user_id=1, approved=True, now=FIXED_NOW)
        assert got.ok
        again = await fresh.decide(r.approval.approval_id, user_id=1, approved=False, now=FIXED_NOW)
        assert not again.ok
        pending = await fresh.load(r.approval.approval_id)
        assert pending is not None
        with runtime.agent.override(model=scripted(TextPart("Done."))):
            done = await resume_approval(runtime, pending, True, deps)
            assert len(done.job_ids) == 1 and "Job #" in done.text

            with runtime.agent.override(
                model=scripted(
                    ToolCallPart(
                        "schedule_action",
                        {"description": "x", "type": "interval", "schedule": "2h"},
                    ),
                    TextPart("Alright, I won't."),
                )
            ):
                r = await run_agent(runtime, "every 2 hours x", deps)
                assert r.approval is not None
                no = await resume_approval(runtime, r.approval, False, deps)
                assert no.text == "Alright, I won't." and not no.job_ids
                assert len(await deps.engine.list_jobs(owner_id=1)) == 1


async def test_expire(deps: HomarDeps, db: Database, runtime: AgentKit) -> None:
    runtime = replace(runtime, approvals=Approvals(ApprovalStore(db), timeout=timedelta(hours=24)))
    with runtime.agent.override(model=scripted(EVERY_MINUTE, TextPart("ok"))):
        r = await run_agent(runtime, "x", deps)
        assert r.approval is not None
        later = FIXED_NOW + timedelta(hours=25)
        assert [a.id for a in await runtime.approvals.expire_due(later)] == [r.approval.approval_id]
        late = await runtime.approvals.decide(
            r.approval.approval_id, user_id=1, approved=True, now=later
        )
        assert not late.ok and "expired" in late.message


async def test_new_message_while_pending_then_approve(runtime: AgentKit, deps: HomarDeps) -> None:
    with runtime.agent.override(model=scripted(EVERY_MINUTE, TextPart("ok"))):
        r = await run_agent(runtime, "x", deps)
        assert r.approval is not None
        with runtime.agent.override(
            model=scripted(TextPart("Sure, still waiting on the buttons."))
        ):
            chat = await run_agent(
                runtime, "what's up?", deps
            )  # open calls are closed for this turn
            assert chat.error is None and chat.text.startswith("Sure")
            with runtime.agent.override(model=scripted(TextPart("Done."))):
                done = await resume_approval(runtime, r.approval, True, deps)
                assert len(done.job_ids) == 1 and done.error is None


async def test_fired_loop_hazard_never_chains(runtime: AgentKit, deps: HomarDeps) -> None:
    """A fired "schedule this again every minute" yields an approval request, never a job."""
    deps = replace(deps, fired=True, fired_job_id=9, fired_kind="delayed")
    for part in (
        EVERY_MINUTE,
        ToolCallPart("send_delayed_message", {"message": "schedule this again", "minutes": 1}),
        TextPart('[CRON: "* * * * *" / MSG: "schedule this again every minute"]'),
    ):
        with runtime.agent.override(model=scripted(part, TextPart("ok"))):
            r = await run_agent(runtime, "schedule this again every minute", deps)
            assert not r.job_ids
            assert await deps.engine.list_jobs(owner_id=1) == []


async def test_guardrails_checked_before_the_proposal(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "schedule_action", {"description": "x", "type": "interval", "schedule": "10 seconds"}
    )
    with runtime.agent.override(model=scripted(call, TextPart("ok"))):
        r = await run_agent(runtime, "every 10 seconds x", deps)
        assert r.approval is None and "60 seconds" in r.text


async def test_preview_of_a_sub_daily_interval_across_dst_is_the_jobs_series(
    deps: HomarDeps,
) -> None:
    """The approval's next runs are the runs the stored job makes, across the spring change."""
    from zoneinfo import ZoneInfo

    from tools.approval import next_runs
    from tools.jobs.model import Target, schedule_of
    from tools.schedule import Every

    berlin = ZoneInfo("Europe/Berlin")
    anchor = datetime(2027, 3, 28, 0, 30, tzinfo=berlin)  # 02:00 → 03:00 that night
    sched = Schedule(Every(2 * 3600, anchor), "Europe/Berlin")
    preview = next_runs(sched, FIXED_NOW)
    job = await deps.engine.create(
        target=Target(1, 100, 10), command="water", schedule=sched, kind="interval"
    )
    stored = schedule_of(await deps.engine.get(job.id))
    runs = [job.next_run_at]
    while len(runs) < len(preview):
        runs.append(stored.next_after(runs[-1], runs_done=len(runs)))
    assert [a.astimezone(UTC) for a in preview] == [r.astimezone(UTC) for r in runs]
    assert [r.astimezone(UTC).hour for r in runs[:3]] == [23, 1, 3]  # every 2 real hours


async def test_approved_interval_runs_the_series_its_preview_showed(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """Approving 30 minutes later doesn't shift an interval away from the previewed runs."""
    call = ToolCallPart(
        "schedule_action", {"description": "water", "type": "interval", "schedule": "2 hours"}
    )
    with runtime.agent.override(model=scripted(call, TextPart("ok"))):
        r = await run_agent(runtime, "every 2 hours water", deps)
        assert r.approval is not None
        first_shown = int((FIXED_NOW + timedelta(hours=2)).timestamp())
        assert f"<t:{first_shown}:F>" in r.approval.proposal
        later = FIXED_NOW + timedelta(minutes=30)
        deps.engine.clock = lambda: later
        deps = replace(deps, now=later)  # the click comes later: the bot builds deps then
        with runtime.agent.override(model=scripted(TextPart("Done."))):
            done = await resume_approval(runtime, r.approval, True, deps)
            job = await deps.engine.get(done.job_ids[0])
            assert job.next_run_at == FIXED_NOW + timedelta(hours=2)
