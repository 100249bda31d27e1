"""Hostile slash-command arguments (tests/data/bad_inputs_slash.jsonl) on the fake Discord.

Each case must get a private, readable answer, create no job and change nothing; afterwards
the bot still takes a normal `/remind`.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.app import HomarBot
from storage.jobs import Job
from storage.models import JobKind, JobRow, JobRunRow, UserSettings
from tests.bot.harness import World, make_world, running_bot
from tests.fakediscord import SEND_MESSAGES, InteractionHandle, running_fake
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

CASES: list[dict[str, Any]] = [
    json.loads(line)
    for line in (Path(__file__).parent.parent / "data" / "bad_inputs_slash.jsonl")
    .read_text()
    .splitlines()
    if line.strip()
]
JOB_COLUMNS = (
    "id",
    "owner_id",
    "status",
    "command",
    "kind",
    "schedule",
    "tz",
    "next_run_at",
    "until",
    "max_runs",
    "run_count",
    "meta",
    "follow_up",
    "audience",
)
# Words that mean the bot failed instead of answering: Discord's own timeout text, a traceback.
BROKEN = ("did not respond", "traceback", "exception", "error:")


def test_enough_cases() -> None:
    assert len(CASES) >= 80
    assert len({c["id"] for c in CASES}) == len(CASES), "case ids must be unique"


async def add_job(bot: HomarBot, world: World, owner: int, text: str) -> Job:
    return await bot.runtime.engine.create(
        target=Target(owner, world.channel.id, world.guild.id),
        command=text,
        schedule=Schedule(Once(world.clock.now() + timedelta(hours=3)), "UTC"),
        kind=JobKind.REMINDER,
        check_limits=False,
    )


async def snapshot(bot: HomarBot) -> tuple[Any, ...]:
    """Every column that a bad command could touch, in a comparable form."""
    async with bot.runtime.db.session() as s:
        jobs = (await s.execute(select(JobRow).order_by(JobRow.id))).scalars().all()
        runs = (await s.execute(select(JobRunRow.id, JobRunRow.job_id, JobRunRow.outcome))).all()
        zones = (await s.execute(select(UserSettings.user_id, UserSettings.tz))).all()
        rows = tuple(tuple(getattr(j, column) for column in JOB_COLUMNS) for j in jobs)
    return rows, tuple(runs), tuple(zones)


def text_of(data: dict[str, Any]) -> str:
    parts = [str(data.get("content") or "")]
    for embed in data.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(p for p in parts if p).strip()


# Options Discord sends with their own types (mentionable, channel, user), not as text.
TYPED = {"to": 9, "channel": 7, "user": 6}


def options_of(case: dict[str, Any], ids: dict[str, int]) -> dict[str, Any]:
    def fill(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if value in ids:
            return ids[value]
        for name, id_ in ids.items():  # ids written inside text, e.g. "<@&ROLE_MODS_ID>"
            value = value.replace(f"{name}_ID", str(id_))
        return value

    return {k: fill(v) for k, v in case["options"].items()}


async def invoke(world: World, command: str, options: dict[str, Any]) -> InteractionHandle:
    name, _, sub = command.partition(" ")
    typed: Any = options
    if TYPED.keys() & options.keys():
        typed = [
            {"name": k, "type": TYPED[k], "value": str(v)}
            if k in TYPED
            else {"name": k, "type": 5 if isinstance(v, bool) else 3, "value": v}
            for k, v in options.items()
        ]
    return await world.fake.slash(
        name,
        typed,
        subcommand=sub or None,
        user_id=world.alice.id,
        channel_id=world.channel.id,
    )


async def answer_of(handle: InteractionHandle) -> tuple[dict[str, Any], bool]:
    """The visible answer and whether it was private, following a deferral if there was one."""
    data = await handle.wait_answer(timeout=3.0)
    return data, handle.ephemeral


async def run_case(world: World, case: dict[str, Any], ids: dict[str, int]) -> str | None:
    """None if the case was handled well, else what went wrong."""
    try:
        handle = await invoke(world, case["command"], options_of(case, ids))
        data, private = await answer_of(handle)
    except TimeoutError:
        return "no answer within 3 s"
    text = text_of(data)
    if not text:
        return "empty answer"
    if not private:
        return f"answer is public: {text[:120]!r}"
    if any(word in text.casefold() for word in BROKEN) or "Something went wrong" in text:
        return f"answer looks like a failure, not guidance: {text[:200]!r}"
    if data.get("components"):
        return f"answer offers buttons, as if a job was made: {text[:120]!r}"
    return exact_outcome(case, text)


def exact_outcome(case: dict[str, Any], text: str) -> str | None:
    """A case may name what its answer must say (`expect`) and how long it may be."""
    if "expect" in case and case["expect"] not in text:
        return f"answer should say {case['expect']!r}: {text[:200]!r}"
    if "max_chars" in case and len(text) > case["max_chars"]:
        return f"answer is {len(text)} chars (echoes the input?): {text[:200]!r}"
    return None


async def audience_places(world: World) -> dict[str, int]:
    """Roles, channels and people the audience-abuse cases name."""
    fake = world.fake
    other = fake.add_guild("Elsewhere")
    carol = fake.add_user("carol")
    fake.add_member(other.id, carol.id)
    denied = fake.add_channel(world.guild.id, "read-only")
    await fake.set_overwrite(denied.id, world.alice.id, deny=SEND_MESSAGES)
    bot_denied = fake.add_channel(world.guild.id, "no-bots")
    await fake.set_overwrite(bot_denied.id, world.bot_id, deny=SEND_MESSAGES)
    places = {
        "EVERYONE": world.guild.id,
        "ROLE_MODS": fake.add_role(world.guild.id, "mods", mentionable=False).id,
        "ROLE_TEAM": fake.add_role(world.guild.id, "team", mentionable=True).id,
        "ROLE_FOREIGN": fake.add_role(other.id, "strangers").id,
        "CHANNEL_FOREIGN": fake.add_channel(other.id, "elsewhere").id,
        "CHANNEL_OK": fake.add_channel(world.guild.id, "announcements").id,
        "CHANNEL_DENIED": denied.id,
        "CHANNEL_BOT_DENIED": bot_denied.id,
        "BOB_USER": world.bob.id,
        "CAROL": carol.id,
        "NOBODY": 4242,
    }
    await fake.wait_for(lambda: True)
    return places


async def check_cases(world: World, bot: HomarBot, cases: list[dict[str, Any]]) -> None:
    """Run every case as alice; bob's job and alice's own job must come through untouched."""
    bobs = await add_job(bot, world, world.bob.id, "bob's standup")
    alices = await add_job(bot, world, world.alice.id, "alice's tea")
    ids = {"BOB": bobs.id, "ALICE": alices.id} | await audience_places(world)
    before = await snapshot(bot)
    problems: dict[str, str] = {}
    for case in cases:
        got = await run_case(world, case, ids)
        after = await snapshot(bot)
        if got is None and after != before:
            got = "database changed (a job was created or edited)"
        if got is not None:
            problems[case["id"]] = got
            before = after  # report each case once, not every one after it
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)[:8000]
    bob_now = await bot.runtime.engine.get(bobs.id)
    assert bob_now.status == "active" and bob_now.command == "bob's standup"
    assert bob_now.schedule == bobs.schedule and bob_now.next_run_at == bobs.next_run_at


async def test_hostile_slash_arguments_are_refused_without_changes(tmp_path: Path) -> None:
    async with running_fake() as fake:
        world = make_world(fake, tmp_path)
        async with running_bot(world) as bot:
            await check_cases(world, bot, CASES)

            # Still responsive: a normal /remind works and makes exactly one job.
            handle = await invoke(world, "remind", {"when": "in 10 minutes", "what": "ok"})
            data, private = await answer_of(handle)
            mine = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert private and "ok" in text_of(data)
    assert sorted(j.command for j in mine) == ["alice's tea", "ok"]
