"""Every button and form is acknowledged before it touches the database: a slow or locked
database never turns a click into "This interaction failed", and storage that is down gets
the same clear private answer as a slash command, with nothing changed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import bot.components.answers
from bot.app import HomarBot
from storage.db import Database
from storage.templates import TemplateStore
from storage.user_settings import UserSettingsStore
from tests.bot.harness import World, running_bot, settle
from tests.bot.test_approval_e2e import buttons, propose
from tests.bot.test_audience_e2e import opts
from tests.bot.test_followups_e2e import button, fires, nag
from tests.bot.test_slash import add_job, custom_ids, slash, text_of
from tests.bot.test_storage_down import CANT_SAVE, DiskFull
from tests.fakediscord import InteractionHandle

Check = Callable[[dict[str, Any]], None]


class Gate:
    """While closed, every database call waits (a locked or very slow database)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = asyncio.Event()
        self.open.set()
        for name in ("run", "run_core"):
            real = getattr(Database, name)

            def gated(real: Any) -> Any:
                async def run(db: Database, work: Any) -> Any:
                    await self.open.wait()
                    return await real(db, work)

                return run

            monkeypatch.setattr(Database, name, gated(real))


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield Gate(monkeypatch)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[DiskFull]:
    yield DiskFull(monkeypatch)


@dataclass
class Press:
    """One press of a component (or a form submission when `form` is given)."""

    message_id: int | None
    custom_id: str
    user_id: int
    channel_id: int
    check: Check  # what the presser sees when it works
    form: dict[str, str] | None = None

    async def __call__(self, world: World) -> InteractionHandle:
        if self.form is not None:
            return await world.fake.submit_modal(
                self.custom_id,
                self.form,
                user_id=self.user_id,
                channel_id=self.channel_id,
                message_id=self.message_id,
            )
        assert self.message_id is not None
        return await world.fake.click_button(self.message_id, self.custom_id, self.user_id)


def _clicked_message(world: World, message_id: int | None, needle: str) -> Check:
    def check(_: dict[str, Any]) -> None:
        assert message_id is not None
        message = world.fake.get_message(message_id)
        assert message is not None and needle in text_of(
            {"content": message.content, "embeds": message.embeds}
        )

    return check


def _says(needle: str) -> Check:
    def check(data: dict[str, Any]) -> None:
        assert needle in text_of(data), data

    return check


async def _confirmation(world: World, what: str = "cake") -> tuple[int, dict[str, Any]]:
    handle = await slash(world, "remind", when="in 2 hours", what=what, repeat="daily")
    data = await handle.wait_answer()
    return (await handle.wait_original()).id, data


async def cancel(world: World, bot: HomarBot) -> Press:
    message_id, data = await _confirmation(world)
    [cid] = [c for c in custom_ids(data) if c.startswith("homar:cancel:")]
    check = _clicked_message(world, message_id, "Cancelled job #")
    return Press(message_id, cid, world.alice.id, world.channel.id, check)


async def page(world: World, bot: HomarBot) -> Press:
    for i in range(12):
        await add_job(bot, world, world.alice.id, f"task {i}", i + 1)
    handle = await slash(world, "jobs", sub="list")
    await handle.wait_answer()
    message_id = (await handle.wait_original()).id
    check = _clicked_message(world, message_id, "Page 2")
    return Press(message_id, "homar:jobs:page:mine:1", world.alice.id, world.channel.id, check)


async def approve(world: World, bot: HomarBot) -> Press:
    thread_id, ask = await propose(world, bot)
    check = _clicked_message(world, ask.id, "Approved")
    return Press(ask.id, buttons(ask)["approve"], world.alice.id, thread_id, check)


async def done(world: World, bot: HomarBot) -> Press:
    thread_id, _ = await nag(world, bot)
    first = await fires(world, bot, thread_id, 10 * 60)
    check = _clicked_message(world, first.id, "Done")
    return Press(first.id, button(first, "done"), world.alice.id, thread_id, check)


async def snooze(world: World, bot: HomarBot) -> Press:
    thread_id, _ = await nag(world, bot)
    first = await fires(world, bot, thread_id, 10 * 60)
    check = _clicked_message(world, first.id, "Snoozed")
    return Press(first.id, button(first, "snooze", "1h"), world.alice.id, thread_id, check)


async def snooze_form(world: World, bot: HomarBot) -> Press:
    thread_id, job = await nag(world, bot)
    first = await fires(world, bot, thread_id, 10 * 60)
    run = button(first, "done").split(":")[-1]
    check = _clicked_message(world, first.id, "Snoozed")
    form = {"when": "in 45 minutes"}
    cid = f"homar:snoozeat:{job.id}:{run}"
    return Press(first.id, cid, world.alice.id, thread_id, check, form=form)


async def join(world: World, bot: HomarBot) -> Press:
    [team] = [r for r in world.fake.guilds[world.guild.id].roles.values() if r.name == "team"]
    handle = await world.fake.slash(
        "remind",
        opts(when="in 5 minutes", what="standup", to=team.id, repeat="daily"),
        user_id=world.alice.id,
        channel_id=world.channel.id,
    )
    await handle.wait_answer()
    [job] = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    before = {m.id for m in world.bot_messages(world.channel.id)}
    await world.clock.advance(5 * 60)
    fired = await world.bot_says(
        world.channel.id,
        lambda m: m.id not in before and f"homar:join:{job.id}" in m.custom_ids(),
        include_existing=True,
    )
    check = _says("I'll ping you on the next ones")
    return Press(fired.id, f"homar:join:{job.id}", world.bob.id, world.channel.id, check)


async def template_form(world: World, bot: HomarBot) -> Press:
    await _confirmation(world, "standup")
    [job] = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    check = _says("Saved as template **standup**")
    cid = f"homar:tplname:{job.id}"
    return Press(None, cid, world.alice.id, world.channel.id, check, form={"name": "standup"})


async def zone(world: World, bot: HomarBot) -> Press:
    await UserSettingsStore(bot.runtime.db).set_tz(world.alice.id, "Europe/Berlin")
    await (await slash(world, "remind", when="tomorrow 9am", what="tea")).wait_answer()
    handle = await world.fake.slash(
        "timezone",
        {"zone": "Tokyo"},
        subcommand="set",
        user_id=world.alice.id,
        channel_id=world.channel.id,
    )
    [cid] = custom_ids(await handle.wait_answer())
    message_id = (await handle.wait_original()).id
    return Press(message_id, cid, world.alice.id, world.channel.id, _says("Moved 1 job"))


KINDS: dict[str, Callable[[World, HomarBot], Awaitable[Press]]] = {
    "cancel": cancel,
    "page": page,
    "approve": approve,
    "done": done,
    "snooze": snooze,
    "snooze_form": snooze_form,
    "join": join,
    "template_form": template_form,
    "zone": zone,
}


async def state(bot: HomarBot, world: World) -> Any:
    """Everything a click could change: jobs, runs' acknowledgements, approvals, templates."""
    runtime = bot.runtime
    jobs = await runtime.engine.list_jobs(include_closed=True, limit=1000)
    runs = [(r.id, r.details) for j in jobs for r in await runtime.store.runs(j.id, limit=50)]
    return (
        [(j.id, j.status, j.next_run_at, j.tz, j.audience) for j in jobs],
        runs,
        [(a.id, a.status) for a in await runtime.approvals.store.pending()],
        await TemplateStore(runtime.db).names(world.guild.id),
    )


def _unanswered(handle: InteractionHandle) -> bool:
    original = handle.original
    filled = original is not None and handle.response_type == 5 and bool(original.content)
    return not handle.followups and handle.edits == 0 and not filled


@pytest.mark.parametrize("kind", list(KINDS))
async def test_a_slow_database_defers_the_click_then_answers(
    world: World, gate: Gate, kind: str
) -> None:
    world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_bot(world) as bot:
        press = await KINDS[kind](world, bot)
        await settle(bot)
        gate.open.clear()
        handle = await press(world)
        first = await handle.wait_response(timeout=5)  # acknowledged while the database waits
        assert int(first["type"]) in (5, 6) and _unanswered(handle)
        gate.open.set()
        data = await handle.wait_answer(timeout=10)
        press.check(data)
        await settle(bot)


@pytest.mark.parametrize("kind", list(KINDS))
async def test_storage_down_gets_the_clear_private_answer_and_changes_nothing(
    world: World, disk: DiskFull, kind: str
) -> None:
    world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_bot(world) as bot:
        press = await KINDS[kind](world, bot)
        await settle(bot)
        before = await state(bot, world)
        disk.on = True
        handle = await press(world)
        data = await handle.wait_answer(timeout=5)
        disk.on = False
        await settle(bot)
        assert handle.ephemeral and CANT_SAVE in str(data.get("content")), data
        assert "nothing was scheduled or changed" in str(data.get("content"))
        assert await state(bot, world) == before


async def _save_button(world: World, bot: HomarBot) -> tuple[int, str]:
    message_id, data = await _confirmation(world)
    [cid] = [c for c in custom_ids(data) if c.startswith("homar:tplsave:")]
    return message_id, cid


async def _custom_snooze_button(world: World, bot: HomarBot) -> tuple[int, str]:
    thread_id, _ = await nag(world, bot)
    first = await fires(world, bot, thread_id, 10 * 60)
    return first.id, button(first, "snooze", "custom")


@pytest.mark.parametrize("opener", [_save_button, _custom_snooze_button])
async def test_a_button_that_opens_a_form_opens_it_even_when_the_database_is_slow(
    world: World,
    gate: Gate,
    monkeypatch: pytest.MonkeyPatch,
    opener: Callable[[World, HomarBot], Awaitable[tuple[int, str]]],
) -> None:
    monkeypatch.setattr(bot.components.answers, "FORM_CHECK_WITHIN", 0.05)
    async with running_bot(world) as homar:
        message_id, cid = await opener(world, homar)
        await settle(homar)
        gate.open.clear()
        handle = await world.fake.click_button(message_id, cid, world.alice.id)
        opened = await handle.wait_response(timeout=5)
        gate.open.set()
        await settle(homar)
    assert int(opened["type"]) == 9  # the form is the first response, as Discord requires
