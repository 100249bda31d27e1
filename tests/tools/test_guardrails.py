"""Guardrails on every job: quota, duplicates, minimum interval, rate limit, permissions."""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.tools.conftest import FIXED_NOW
from tests.values import job as a_job
from tools.errors import LimitReached, UserError
from tools.jobs.engine import Engine
from tools.jobs.limits import _INVISIBLE, Limits, normalize_command
from tools.jobs.model import Actor, Target
from tools.schedule import Cron, Every, Once, Schedule, ScheduleError

ALICE = Target(1, 100, 10)


def once(minutes: int) -> Schedule:
    return Schedule(Once(FIXED_NOW + timedelta(minutes=minutes)), "UTC")


async def test_quota(engine: Engine) -> None:
    engine.limits = Limits(max_jobs_per_user=3, creations_per_minute=100)
    for i in range(3):
        await engine.create(target=ALICE, command=f"j{i}", schedule=once(i + 1), kind="delayed")
    with pytest.raises(LimitReached, match="limit is 3"):
        await engine.create(target=ALICE, command="j9", schedule=once(9), kind="delayed")
    with pytest.raises(LimitReached):
        await engine.check_quota(1)


async def test_duplicate_names_existing_job(engine: Engine) -> None:
    job = await engine.create(target=ALICE, command="Call mom", schedule=once(5), kind="delayed")
    with pytest.raises(UserError, match=f"#{job.id}"):
        await engine.create(target=ALICE, command=" call  MOM! ", schedule=once(5), kind="delayed")


def test_minimum_interval(engine: Engine) -> None:
    with pytest.raises(ScheduleError, match="60 seconds"):
        engine.check_schedule(Schedule(Every(30, FIXED_NOW + timedelta(seconds=30)), "UTC"))
    # `* * * * *` is exactly 60 s apart: allowed by MIN_INTERVAL=60 (the limit is "at least"),
    # but when the agent proposes it, it still waits for the user's approval (test_approval).
    engine.check_schedule(Schedule(Cron("* * * * *"), "UTC"))


async def test_rate_limit(engine: Engine) -> None:
    engine.limits = Limits(creations_per_minute=2)
    await engine.create(target=ALICE, command="a", schedule=once(1), kind="delayed")
    await engine.create(target=ALICE, command="b", schedule=once(2), kind="delayed")
    with pytest.raises(LimitReached, match="last minute"):
        engine.check_rate(1)
    with pytest.raises(LimitReached):
        await engine.create(target=ALICE, command="c", schedule=once(3), kind="delayed")


@pytest.mark.parametrize(
    ("actor", "job_guild", "allowed"),
    [
        (Actor(1, 10), 10, True),  # own guild job
        (Actor(1, None), None, True),  # own DM job
        (Actor(2, 10), 10, False),  # someone else's
        (Actor(2, 10, manage_messages=True), 10, True),  # moderator, same guild
        (Actor(2, 11, manage_messages=True), 10, False),  # moderator, other guild
        (Actor(2, 10, manage_messages=True), None, False),  # a DM job is its owner's alone
    ],
)
def test_permission_matrix(actor: Actor, job_guild: int | None, allowed: bool) -> None:
    job = a_job(owner_id=1, guild_id=job_guild, channel_id=5)
    assert actor.may_manage(job) is allowed


@pytest.mark.parametrize(
    "text", ["@everyone now", "@here", "<@&42> standup", "[DELAYED_COMMAND] x", "\u200b\u200b", ""]
)
def test_command_refusals(engine: Engine, text: str) -> None:
    with pytest.raises(UserError):
        engine.check_command(text)


@pytest.mark.parametrize(
    "text",
    [
        "  Call   Mom!! ",
        "call\tmom\n.",
        "CALL MOM",
        "call\x1cmom",  # an ASCII separator is whitespace to `\s`
        "call\u00a0mom\u3000",
        "call\u200bmom\u2060",
        "ＣＡＬＬ mom",  # fullwidth: NFKC folds it
        "Straße",
        "ﬁle it",
        "\u200d!. ",
    ],
)
def test_normalize_command_as_defined(text: str) -> None:
    """The fast paths fold, drop invisibles and collapse spaces exactly as the definition."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    defined = re.sub(r"\s+", " ", _INVISIBLE.sub("", folded)).strip(" .!")
    assert normalize_command(text) == defined


def test_one_off_first_run_and_refusals(engine: Engine) -> None:
    """A one-off's first run is its instant in UTC; its end and horizon still refuse."""
    at = (FIXED_NOW + timedelta(hours=3)).astimezone(ZoneInfo("Asia/Tokyo"))
    first = engine.check_schedule(Schedule(Once(at), "Europe/Berlin"), FIXED_NOW)
    assert first == at and first.utcoffset() == timedelta(0)
    with pytest.raises(ScheduleError, match="never runs again"):
        engine.check_schedule(Schedule(Once(at), "UTC", until=at - timedelta(minutes=1)), FIXED_NOW)
    with pytest.raises(ScheduleError, match="end date is already in the past"):
        engine.check_schedule(Schedule(Once(at), "UTC", until=FIXED_NOW), FIXED_NOW)
    with pytest.raises(ScheduleError, match="too far ahead"):
        engine.check_schedule(Schedule(Once(FIXED_NOW + timedelta(days=6 * 365))), FIXED_NOW)
    with pytest.raises(ScheduleError, match="already in the past"):
        engine.check_schedule(Schedule(Once(FIXED_NOW)), FIXED_NOW)
