"""Editing who a job pings (its audience) and its follow-ups on the dashboard, and the
reminder's Done/Snooze: the same checks as Discord (`bot/audience.py`), the same engine
commands, the same permissions (own jobs, or Manage Messages in that server; DM jobs only
their owner)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from storage.jobs import Job
from tests.bot.harness import World, settle
from tests.fakediscord import MENTION_EVERYONE
from tests.web.site import Site, running_site
from tools.audience import Audience
from tools.jobs import reminders as followups
from tools.jobs.model import SNOOZED, FollowUpState, Target
from tools.schedule import Once, Schedule


async def job_of(site: Site, job_id: int) -> Job:
    return await site.bot.runtime.engine.get(job_id)


async def reminder(
    site: Site, owner: int, *, guild: int | None, follow_up: dict[str, int] | None = None
) -> Job:
    """A reminder as /remind makes it (in the server's channel, or in the owner's DMs)."""
    now = site.world.clock.now()
    channel = site.world.channel.id
    if guild is None:  # in the owner's DMs with the bot
        channel = (await (await site.bot.fetch_user(owner)).create_dm()).id
    made = await site.bot.runtime.engine.create(
        target=Target(owner, channel, guild),
        command="water the plants" if guild is not None else "call the bank",
        schedule=Schedule(Once(now + timedelta(minutes=10)), "UTC"),
        kind="reminder",
        follow_up=follow_up,
    )
    return await job_of(site, made.id)


async def test_owner_sets_who_a_job_pings_with_discords_rules(world: World) -> None:
    team = world.fake.add_role(world.guild.id, "team", mentionable=True)
    hidden = world.fake.add_role(world.guild.id, "hidden", mentionable=False)
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=world.guild.id)
        await web.sign_in(world.alice.id)
        _, page = await web.page(f"/jobs/{job.id}")
        assert 'name="to" value="me"' in page  # the current audience, as it would be typed
        # a mentionable role and Bob by mention, plus the owner
        status, _ = await web.post(f"/jobs/{job.id}/edit", {"to": f"me @team <@{world.bob.id}>"})
        assert status == 302
        _, page = await web.page(f"/jobs/{job.id}")
        assert "Updated" in page and "&lt;t:" not in page  # local times, not Discord markup
        stored = Audience.from_json((await job_of(site, job.id)).audience)
        assert stored == Audience(users=(world.bob.id,), roles=(team.id,), owner=True)
        pings = page.split("<dt>Pings</dt><dd>")[1].split("</dd>")[0]
        assert pings == "you, @bob and @team", pings
        # the form shows it by name, and people already pinged keep working by name
        assert 'name="to" value="me @bob @team"' in page
        await web.post(f"/jobs/{job.id}/edit", {"to": "@bob @team"})
        without_me = Audience.from_json((await job_of(site, job.id)).audience)
        assert without_me == Audience(users=(world.bob.id,), roles=(team.id,), owner=False)
        await web.post(f"/jobs/{job.id}/edit", {"to": f"me @team <@{world.bob.id}>"})
        # a role Alice can't ping in Discord (not mentionable, no Mention Everyone): refused
        await web.post(f"/jobs/{job.id}/edit", {"to": "@hidden"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "isn&#39;t mentionable" in page
        assert Audience.from_json((await job_of(site, job.id)).audience) == stored
        # @everyone is off in this server unless an admin allows it
        await web.post(f"/jobs/{job.id}/edit", {"to": "@everyone"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "is off in this server" in page
        # a channel the server doesn't have: refused
        await web.post(f"/jobs/{job.id}/edit", {"to": "#nowhere"})
        assert Audience.from_json((await job_of(site, job.id)).audience) == stored
        # back to just the owner
        await web.post(f"/jobs/{job.id}/edit", {"to": ""})
        assert (await job_of(site, job.id)).audience is None
        assert hidden.id not in stored.roles


async def test_a_dm_job_can_only_ping_its_owner(world: World) -> None:
    world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=None)
        await web.sign_in(world.alice.id)
        await web.page(f"/jobs/{job.id}")
        await web.post(f"/jobs/{job.id}/edit", {"to": f"<@{world.bob.id}>"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "set it up in a server you both are in" in page
        assert (await job_of(site, job.id)).audience is None


async def test_others_cannot_change_who_a_job_pings(world: World) -> None:
    world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=world.guild.id)
        dm_job = await reminder(site, world.alice.id, guild=None)
        await web.sign_in(world.bob.id)  # a plain member
        await web.page("/jobs")
        for target in (job, dm_job):
            status, _ = await web.post(f"/jobs/{target.id}/edit", {"to": "@team"})
            assert status == 403
            status, _ = await web.post(
                f"/jobs/{target.id}/edit",
                {"follow_ups": "1", "follow_up": "on", "follow_every": "5 minutes"},
            )
            assert status == 403
            after = await job_of(site, target.id)
            assert after.audience is None and after.follow_up is None


async def test_a_moderator_may_set_only_what_both_of_them_could_ping(world: World) -> None:
    mods = world.fake.add_role(world.guild.id, "mods", manage_messages=True)
    loud = world.fake.add_role(world.guild.id, "loud", permissions=MENTION_EVERYONE)
    hidden = world.fake.add_role(world.guild.id, "hidden", mentionable=False)
    team = world.fake.add_role(world.guild.id, "team", mentionable=True)
    world.fake.guilds[world.guild.id].members[world.bob.id].roles.append(mods.id)
    world.fake.guilds[world.guild.id].members[world.alice.id].roles.append(loud.id)
    for role in world.fake.guilds[world.guild.id].roles.values():
        if role.managed:  # Homar may ping any role here; only the people's rights differ
            role.permissions |= MENTION_EVERYONE
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=world.guild.id)
        dm_job = await reminder(site, world.alice.id, guild=None)
        await web.sign_in(world.bob.id)
        await web.page(f"/jobs/{job.id}")
        # Alice could ping @hidden (she has Mention Everyone), Bob could not: refused
        await web.post(f"/jobs/{job.id}/edit", {"to": "@hidden"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "You can&#39;t ping @hidden" in page
        assert (await job_of(site, job.id)).audience is None
        # a role both may ping: the moderator's change goes through
        status, _ = await web.post(f"/jobs/{job.id}/edit", {"to": "me @team"})
        assert status == 302
        assert Audience.from_json((await job_of(site, job.id)).audience).roles == (team.id,)
        # Alice's DM job is hers alone
        status, _ = await web.post(f"/jobs/{dm_job.id}/edit", {"to": "me"})
        assert status == 403
        # Alice herself may ping @hidden: the refusal above was about Bob's rights
        await web.sign_in(world.alice.id)
        await web.page(f"/jobs/{job.id}")
        status, _ = await web.post(f"/jobs/{job.id}/edit", {"to": "@hidden"})
        assert status == 302
        assert Audience.from_json((await job_of(site, job.id)).audience).roles == (hidden.id,)


async def test_follow_ups_are_set_changed_and_turned_off(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=world.guild.id)
        await web.sign_in(world.alice.id)
        _, page = await web.page(f"/jobs/{job.id}")
        assert 'name="follow_every"' in page
        fields = {"follow_ups": "1", "follow_up": "on", "follow_every": "10 minutes"}
        status, _ = await web.post(
            f"/jobs/{job.id}/edit", fields | {"follow_max": "3", "escalate": "dm"}
        )
        assert status == 302
        assert (await job_of(site, job.id)).follow_up == {
            "interval_s": 600,
            "max": 3,
            "escalate": "dm",
        }
        _, page = await web.page(f"/jobs/{job.id}")
        assert "every 10 min, up to 3 times, then one DM" in page
        # nonsense is refused with what to type instead, and changes nothing
        for bad in ({"follow_every": "banana"}, {"follow_max": "99"}, {"follow_every": "5 s"}):
            await web.post(f"/jobs/{job.id}/edit", fields | bad)
            _, page = await web.page(f"/jobs/{job.id}")
            assert 'class="flash error"' in page, bad
            assert (await job_of(site, job.id)).follow_up == {
                "interval_s": 600,
                "max": 3,
                "escalate": "dm",
            }
        # the form without the box ticked turns them off
        await web.post(f"/jobs/{job.id}/edit", {"follow_ups": "1", "follow_every": "10 minutes"})
        assert (await job_of(site, job.id)).follow_up is None
        # a form that doesn't carry the follow-up fields leaves them alone
        await web.post(f"/jobs/{job.id}/edit", fields)
        await web.post(f"/jobs/{job.id}/edit", {"what": "water the plants!"})
        assert (await job_of(site, job.id)).follow_up == {"interval_s": 600, "max": 2}


async def test_done_and_snooze_end_or_move_the_follow_ups(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        bot = site.bot
        job = await reminder(
            site, world.alice.id, guild=world.guild.id, follow_up={"interval_s": 1800, "max": 2}
        )
        await web.sign_in(world.bob.id)
        await web.page("/jobs")
        await world.clock.advance(10 * 60 + 1)
        await settle(bot)
        fired = await job_of(site, job.id)
        assert FollowUpState.of(fired).awaiting is not None  # waiting for Alice's answer
        # Bob can't answer Alice's reminder (as with its Discord buttons)
        status, _ = await web.post(f"/jobs/{job.id}/done")
        assert status == 403
        await web.sign_in(world.alice.id)
        _, page = await web.page(f"/jobs/{job.id}")
        assert "waiting for your answer" in page and ">Done</button>" in page
        # Snooze: fires again in an hour, with a fresh cycle
        now = world.clock.now()
        status, _ = await web.post(f"/jobs/{job.id}/snooze", {"choice": "1h"})
        assert status == 302
        snoozed = await job_of(site, job.id)
        assert snoozed.next_run_at == now + timedelta(hours=1)
        assert SNOOZED in (snoozed.meta or {})
        await web.post(f"/jobs/{job.id}/snooze", {"choice": "custom", "until": "whenever"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "couldn" in page and "in 45 minutes" in page
        await web.post(f"/jobs/{job.id}/snooze", {"choice": "custom", "until": "in 2 hours"})
        assert (await job_of(site, job.id)).next_run_at == now + timedelta(hours=2)
        # Done: no more nudges; the one-off is complete
        status, _ = await web.post(f"/jobs/{job.id}/done")
        assert status == 302
        done = await job_of(site, job.id)
        assert not followups.pending(done) and done.status == "completed"
        _, page = await web.page(f"/jobs/{job.id}")
        assert "no more nudges" in page
        await settle(bot)


@pytest.mark.parametrize(
    "typed",
    [
        "<script>alert(1)</script>",
        "<@99999999999999999999>",
        "<@&99999999999999999999> <#99999999999999999999>",
        "@" * 500,
        "#general #general #nowhere",
        "me " * 300,
    ],
)
async def test_hostile_audience_text_never_crashes_or_changes_anything(
    world: World, typed: str
) -> None:
    async with running_site(world) as site, site.client() as web:
        job = await reminder(site, world.alice.id, guild=world.guild.id)
        await web.sign_in(world.alice.id)
        await web.page(f"/jobs/{job.id}")
        status, _ = await web.post(f"/jobs/{job.id}/edit", {"to": typed})
        assert status == 302
        _, page = await web.page(f"/jobs/{job.id}")
        assert 'class="flash error"' in page and "<script>alert" not in page
        assert (await job_of(site, job.id)).audience is None


async def test_saving_the_form_unchanged_keeps_unusual_follow_ups(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        job = await reminder(
            site, world.alice.id, guild=world.guild.id, follow_up={"interval_s": 90, "max": 7}
        )
        await web.sign_in(world.alice.id)
        _, page = await web.page(f"/jobs/{job.id}")
        every = re.search(r'name="follow_every" placeholder="[^"]*" value="([^"]*)"', page)
        assert every is not None and every.group(1) == "90 seconds"
        form = {
            "what": "water the plants!",
            "to": "me",
            "follow_ups": "1",
            "follow_up": "on",
            "follow_every": every.group(1),
            "follow_max": "7",
        }
        status, _ = await web.post(f"/jobs/{job.id}/edit", form)
        assert status == 302
        edited = await job_of(site, job.id)
        assert edited.command == "water the plants!"
        assert edited.follow_up == {"interval_s": 90, "max": 7}
