"""`JobStore`, method by method, on its own (no engine): reads, creations guarded by the
owner's open jobs, compare-and-set changes, recording runs, and the hand-over paths."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

import storage.jobs
from storage.db import Database
from storage.jobs import Changed, Finished, Job, JobHealth, JobStore, Run, RunNote
from storage.models import JobStatus, RunOutcome

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)
LEASE = timedelta(seconds=90)


def job(at: datetime | None = NOW, **kw: object) -> dict[str, object]:
    values: dict[str, object] = dict(
        owner_id=1,
        guild_id=10,
        channel_id=100,
        command="x",
        kind="delayed",
        schedule={"type": "once", "at": (at or NOW).isoformat()},
        tz="UTC",
        status=JobStatus.ACTIVE,
        created_by="user",
        created_at=NOW,
        updated_at=NOW,
        next_run_at=at,
    )
    values.update(kw)
    return values


@pytest.fixture
def store(db: Database) -> JobStore:
    return JobStore(db)


async def delivered(store: JobStore, job_id: int, at: datetime = NOW) -> Run:
    """Claim the job's due run and mark it delivered; the run as stored."""
    [claim] = await store.claim_due(at, limit=10, lease=LEASE)
    assert claim.job.id == job_id
    await store.update_run(claim.run.id, outcome=RunOutcome.DELIVERED, delivered_at=at)
    [run] = await store.runs(job_id)
    return run


# ---------------------------------------------------------------- reads


async def test_get_returns_the_row_or_none(store: JobStore) -> None:
    job_id = await store.create(job(command="call mom"))
    got = await store.get(job_id)
    assert got is not None and got.command == "call mom" and got.status == JobStatus.ACTIVE
    assert got.run_count == 0 and got.failure_streak == 0
    assert await store.get(job_id + 100) is None


async def test_find_filters_orders_and_pages(store: JobStore) -> None:
    later = await store.create(job(NOW + timedelta(hours=2)))
    sooner = await store.create(job(NOW + timedelta(hours=1)))
    paused = await store.create(job(None, status=JobStatus.PAUSED, tz="Europe/Berlin"))
    await store.create(job(NOW, owner_id=2, channel_id=200, guild_id=20))
    await store.create(job(None, status=JobStatus.COMPLETED))
    mine = await store.find(owner_id=1)
    assert [j.id for j in mine] == [sooner, later, paused]  # by next run, unscheduled last
    assert [j.id for j in await store.find(owner_id=1, tz="Europe/Berlin")] == [paused]
    assert len(await store.find(owner_id=1, statuses=None)) == 4
    assert [j.owner_id for j in await store.find(guild_id=20)] == [2]
    assert [j.owner_id for j in await store.find(channel_id=200)] == [2]
    assert [j.id for j in await store.find(owner_id=1, limit=1, offset=1)] == [later]


async def test_count_and_count_by_status(store: JobStore) -> None:
    await store.create(job())
    await store.create(job(None, status=JobStatus.PAUSED))
    await store.create(job(None, status=JobStatus.CANCELLED))
    assert await store.count(owner_id=1) == 2
    assert await store.count(owner_id=1, statuses=[JobStatus.CANCELLED]) == 1
    assert await store.count(owner_id=2) == 0
    assert await store.count_by_status() == {"active": 1, "paused": 1, "cancelled": 1}


async def test_earliest_due_counts_only_active_jobs(store: JobStore) -> None:
    assert await store.earliest_due() is None
    await store.create(job(NOW - timedelta(hours=1), status=JobStatus.PAUSED))
    await store.create(job(NOW + timedelta(minutes=5)))
    assert await store.earliest_due() == NOW + timedelta(minutes=5)


async def test_count_due_counts_active_jobs_due_by_now(store: JobStore) -> None:
    await store.create(job(NOW - timedelta(minutes=5)))
    await store.create(job(NOW))
    await store.create(job(NOW + timedelta(seconds=1)))
    await store.create(job(NOW - timedelta(hours=1), status=JobStatus.PAUSED))
    assert await store.count_due(NOW) == 2
    assert await store.count_due(NOW - timedelta(hours=2)) == 0


async def test_health_counts_jobs_by_state_and_the_windows_bad_runs(store: JobStore) -> None:
    late = await store.create(job(NOW - timedelta(minutes=5)))
    await store.create(job(NOW - timedelta(seconds=30)))
    await store.create(job(NOW + timedelta(hours=1)))
    await store.create(job(None, status=JobStatus.FAILED))
    await store.create(job(None, status=JobStatus.PAUSED))
    await store.create(job(None, status=JobStatus.PAUSED))
    assert await store.health(NOW) == JobHealth(
        pending=3, due=2, late=1, failed=1, paused=2, failed_runs=0, late_runs=0
    )
    claims = await store.claim_due(NOW, limit=10, lease=LEASE)  # due again at the lease's end
    [run] = [c.run for c in claims if c.job.id == late]
    await store.update_run(run.id, outcome=RunOutcome.FAILED, lateness_ms=300_000)
    health = await store.health(NOW)
    assert (health.pending, health.due, health.failed_runs, health.late_runs) == (3, 0, 1, 1)
    # Runs older than the window no longer count; the lateness threshold is the caller's.
    later = await store.health(NOW + timedelta(days=2))
    assert (later.failed_runs, later.late_runs) == (0, 0)
    lenient = await store.health(NOW, late_after=timedelta(minutes=10))
    assert (lenient.late, lenient.late_runs) == (0, 0)


async def test_newest_id_is_the_highest_id_given(store: JobStore) -> None:
    assert await store.newest_id() == 0
    await store.create(job())
    newest = await store.create(job(None, status=JobStatus.CANCELLED))
    assert await store.newest_id() == newest


async def test_runs_and_run_by_nonce(store: JobStore) -> None:
    job_id = await store.create(job())
    run = await delivered(store, job_id)
    assert run.outcome == RunOutcome.DELIVERED and run.scheduled_for == NOW
    found = await store.run_by_nonce(run.nonce)
    assert found is not None and found.id == run.id
    assert await store.run_by_nonce("nope") is None
    assert await store.runs(job_id + 1) == []


async def test_open_keys_lists_each_owners_open_jobs(store: JobStore) -> None:
    a = await store.create(job(command="a"))
    b = await store.create(job(None, command="b", status=JobStatus.PENDING_APPROVAL))
    await store.create(job(None, command="c", status=JobStatus.COMPLETED))
    keys = await store.open_keys([1, 2, 1])
    assert sorted(k.id for k in keys[1]) == [a, b] and keys[2] == []
    assert {k.command for k in keys[1]} == {"a", "b"}


# ---------------------------------------------------------------- creations


async def test_create_refuses_when_the_owners_open_jobs_changed(store: JobStore) -> None:
    first = await store.create(job(command="a"))
    checked = await store.open_keys([1])
    await store.create(job(command="b"))  # someone else's creation, after the check
    with pytest.raises(Changed) as refused:
        await store.create(job(command="c"), expect_open=checked)
    assert [j.command for j in await store.find(owner_id=1)] == ["a", "b"]
    now_open = refused.value.open_keys  # the owner's open jobs as they are now
    assert sorted(k.id for k in now_open[1]) == [first, first + 1]
    assert await store.create(job(command="c"), expect_open=now_open) > first


async def test_create_refuses_when_an_open_job_was_edited(store: JobStore) -> None:
    await store.create(job(command="a"))
    checked = await store.open_keys([1])
    [current] = await store.find(owner_id=1)
    await store.update(current.id, command="b")  # same job, new text: duplicates differ
    with pytest.raises(Changed) as refused:
        await store.create(job(command="b"), expect_open=checked)
    assert [k.command for k in refused.value.open_keys[1]] == ["b"]


@pytest.mark.sqlite_only("the check skipped while nothing else wrote is SQLite's")
async def test_creations_in_a_row_read_the_owners_open_jobs_once(
    store: JobStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Back-to-back creations (a burst, an import by hand) read each owner's open jobs on
    the first only: after that, the keys a creation hands back are the open jobs, as long
    as nothing else wrote to the database meanwhile."""
    reads = []
    real = storage.jobs._expect_open
    monkeypatch.setattr(storage.jobs, "_expect_open", lambda *a: reads.append(a) or real(*a))
    a = await store.create_keyed(job(command="a"), expect_open={1: []})
    x = await store.create_keyed(job(command="x", owner_id=2), expect_open={2: []})
    assert len(reads) == 2
    b = await store.create_keyed(job(command="b"), expect_open={1: [a]})
    await store.create_keyed(job(command="y", owner_id=2), expect_open={2: [x]})
    await store.create_keyed(job(command="c"), expect_open={1: [a, b]})
    assert len(reads) == 2
    # An expectation that is not what this store vouched for is read and refused.
    with pytest.raises(Changed):
        await store.create_keyed(job(command="d"), expect_open={1: [a]})
    assert len(reads) == 3
    assert [j.command for j in await store.find(owner_id=1)] == ["a", "b", "c"]


async def _another_connection_adds(db: Database, store: JobStore) -> None:
    other = Database(db.url)
    try:
        await JobStore(other).create(job(command="b"))
    finally:
        await other.close()


async def _another_store_adds(db: Database, store: JobStore) -> None:
    await JobStore(db).create(job(command="b"))


async def _edited(db: Database, store: JobStore) -> None:
    [current] = await store.find(owner_id=1)
    await store.update(current.id, command="b")


async def _finished(db: Database, store: JobStore) -> None:
    [current] = await store.find(owner_id=1)
    await store.update(current.id, status=JobStatus.COMPLETED, next_run_at=None)


@pytest.mark.parametrize(
    "write", [_another_connection_adds, _another_store_adds, _edited, _finished]
)
async def test_a_creation_after_any_other_write_reads_the_owners_open_jobs_again(
    db: Database, store: JobStore, write: Callable[[Database, JobStore], Awaitable[None]]
) -> None:
    """Whatever else wrote since the last creation (another process, another store on this
    connection, an edit, a run finishing), the next creation's limits are checked against
    the open jobs as stored now, not as the last creation left them."""
    a = await store.create_keyed(job(command="a"), expect_open={1: []})
    await write(db, store)
    with pytest.raises(Changed) as refused:
        await store.create_keyed(job(command="c"), expect_open={1: [a]})
    now_open = refused.value.open_keys[1]
    assert now_open != [a]
    assert (await store.create_keyed(job(command="c"), expect_open={1: now_open})).command == "c"


async def test_create_many_is_all_or_nothing(store: JobStore) -> None:
    assert await store.create_many([job(command="a"), job(command="b", owner_id=2)]) == 2
    with pytest.raises(Changed):
        await store.create_many(
            [job(command="c"), job(command="d", owner_id=2)],
            expect_open={1: [], 2: []},  # both owners have one by now
        )
    assert await store.count(owner_id=1) == 1 and await store.count(owner_id=2) == 1


# ---------------------------------------------------------------- changes


async def test_update_sets_columns(store: JobStore) -> None:
    job_id = await store.create(job())
    changed = await store.update(job_id, command="y", status=JobStatus.PAUSED)
    assert changed is not None and changed.command == "y"
    got = await store.get(job_id)
    assert got is not None and got.status == JobStatus.PAUSED
    assert await store.update(job_id + 1, command="z") is None


async def test_update_if_records_its_note_only_when_it_changes(store: JobStore) -> None:
    job_id = await store.create(job())
    run = await delivered(store, job_id)
    current = await store.get(job_id)
    assert current is not None
    seen = {"updated_at": current.updated_at}
    note = RunNote(run.id, "acknowledged", {"how": "done"})
    later = NOW + timedelta(minutes=1)
    assert await store.update_if(job_id, seen, {"updated_at": later}, note=note) is not None
    assert await store.update_if(job_id, seen, {"updated_at": later}, note=note) is None
    [after] = await store.runs(job_id)
    assert after.details == {"acknowledged": {"how": "done"}}


async def test_note_on_run_finds_the_run_it_answers(store: JobStore) -> None:
    job_id = await store.create(job())
    other = await store.create(job(owner_id=2))
    claims = await store.claim_due(NOW, limit=10, lease=LEASE)
    for claim in claims:
        await store.update_run(claim.run.id, outcome=RunOutcome.DELIVERED, delivered_at=NOW)
    other_run = next(c.run for c in claims if c.job.id == other)
    # No run given: the latest delivered run of the job.
    await store.note_on_run(job_id, RunNote(None, "snoozed", {"until": "later"}))
    # Another job's run id is not this job's: falls back to this job's latest run.
    await store.note_on_run(job_id, RunNote(other_run.id, "acknowledged", {"how": "message"}))
    [mine] = await store.runs(job_id)
    assert mine.details == {"snoozed": {"until": "later"}, "acknowledged": {"how": "message"}}
    [theirs] = await store.runs(other)
    assert not theirs.details


async def test_update_run_sets_run_columns(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    await store.update_run(claim.run.id, error="boom", details={"k": 1})
    [run] = await store.runs(job_id)
    assert run.error == "boom" and run.details == {"k": 1}


# ---------------------------------------------------------------- recording runs


async def test_finish_writes_the_run_and_the_planned_change(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    changes = {"status": JobStatus.COMPLETED, "next_run_at": None, "claimed_slot": None}
    run_values = {"outcome": RunOutcome.DELIVERED, "delivered_at": NOW}
    jobs, stale = await store.finish([Finished(claim, run_values, claim.job, changes)])
    assert stale == []
    after = jobs[job_id]
    assert after is not None and after.status == JobStatus.COMPLETED
    got = await store.get(job_id)
    assert got is not None and got.status == JobStatus.COMPLETED and got.claimed_slot is None
    [run] = await store.runs(job_id)
    assert run.outcome == RunOutcome.DELIVERED and run.lease_until is None


async def test_finish_hands_back_a_job_that_changed_since_it_was_read(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    # Paused while the run was in flight: the plan made from the claimed job is stale.
    await store.update(job_id, status=JobStatus.PAUSED, updated_at=NOW + timedelta(seconds=1))
    changes = {"status": JobStatus.COMPLETED, "next_run_at": None, "claimed_slot": None}
    run_values = {"outcome": RunOutcome.DELIVERED, "delivered_at": NOW}
    planned = Finished(claim, run_values, claim.job, changes)
    jobs, stale = await store.finish([planned])
    assert stale == [planned]
    now = jobs[job_id]
    assert isinstance(now, Job) and now.status == JobStatus.PAUSED
    [run] = await store.runs(job_id)
    assert run.outcome == RunOutcome.PENDING  # nothing of it was written
    # Planned again from the job as it is now: written.
    again = Finished(claim, run_values, now, {"claimed_slot": None})
    jobs, stale = await store.finish([again])
    assert stale == [] and jobs[job_id] is not None
    got = await store.get(job_id)
    assert got is not None and got.status == JobStatus.PAUSED and got.claimed_slot is None
    [run] = await store.runs(job_id)
    assert run.outcome == RunOutcome.DELIVERED


async def test_finish_without_changes_records_only_the_run(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    run_values = {"outcome": RunOutcome.FAILED, "error": "gone"}
    jobs, stale = await store.finish([Finished(claim, run_values, None, None)])
    assert stale == [] and jobs == {job_id: None}
    got = await store.get(job_id)
    assert got is not None and got.claimed_slot == NOW  # untouched
    [run] = await store.runs(job_id)
    assert run.outcome == RunOutcome.FAILED and run.error == "gone"


# ---------------------------------------------------------------- hand-over paths


async def test_hand_back_makes_unstarted_claims_due_at_their_slot(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    assert await store.earliest_due() == NOW + LEASE
    assert await store.hand_back([]) == 0
    assert await store.hand_back([job_id]) == 1
    assert await store.earliest_due() == NOW
    [run] = await store.runs(job_id)
    assert run.lease_until is None and run.id == claim.run.id
    [again] = await store.claim_due(NOW, limit=1, lease=LEASE)
    assert again.run.id == claim.run.id and again.run.nonce == claim.run.nonce


async def test_mark_executed_takes_a_run_once(store: JobStore) -> None:
    job_id = await store.create(job())
    [claim] = await store.claim_due(NOW, limit=1, lease=LEASE)
    taken = await store.mark_executed(claim.run.nonce, NOW)
    assert taken is not None and taken.executed_at == NOW and taken.replied_at == NOW
    assert await store.mark_executed(claim.run.nonce, NOW) is None
    assert await store.mark_executed("unknown", NOW) is None
    assert (await store.runs(job_id))[0].executed_at == NOW


# ---------------------------------------------------------------- values, not rows


async def test_every_read_hands_out_frozen_values(store: JobStore) -> None:
    """What a store method returns is a value: changing a job goes through the store."""
    job_id = await store.create(job())
    run = await delivered(store, job_id)
    assert run.outcome == RunOutcome.DELIVERED
    jobs = [
        await store.get(job_id),
        *(await store.find(owner_id=1, statuses=None)),
        await store.update(job_id, command="y"),
        await store.update_if(job_id, {"command": "y"}, {"command": "z"}),
    ]
    runs = [*(await store.runs(job_id)), await store.run_by_nonce(run.nonce)]
    taken = await store.take_reply(run.nonce, NOW, LEASE)
    assert taken is not None and taken[1] is not None
    jobs.append(taken[1])
    runs.append(taken[0])
    assert all(isinstance(j, Job) for j in jobs) and all(isinstance(r, Run) for r in runs)
    for value in (*jobs, *runs):
        with pytest.raises(AttributeError):  # FrozenInstanceError: a value, not a live row
            value.id = 0  # type: ignore[misc, union-attr]
    assert [j.command for j in jobs if j is not None][-2:] == ["z", "z"]


async def test_a_claim_names_new_runs_as_the_caller_says(store: JobStore) -> None:
    follow_up = await store.create(job(meta={"cycle": "follow_up"}))
    regular = await store.create(job())
    claims = await store.claim_due(
        NOW,
        limit=10,
        lease=LEASE,
        run_kind=lambda j: str((j.meta or {}).get("cycle", "run")),
    )
    kinds = {c.job.id: (c.run.kind, c.run.nonce[0]) for c in claims}
    assert kinds == {follow_up: ("follow_up", "f"), regular: ("run", "r")}
    # Without a caller's say, a new run is a regular one.
    later = await store.create(job(meta={"cycle": "follow_up"}))
    [claim] = await store.claim_due(NOW, limit=10, lease=LEASE)
    assert (claim.job.id, claim.run.kind) == (later, "run")
