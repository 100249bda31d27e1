"""Dashboard writes go through the engine (limits, validation, wake-ups); the live stream
says when something changed; the operator's one-time sign-in link from the CLI."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta

import aiohttp
import pytest
from typer.testing import CliRunner

from bot.cli import app as cli
from storage.user_settings import UserSettingsStore
from tests.bot.harness import World, running_bot
from tests.web.site import running_site
from tools.audience import Audience
from tools.jobs.model import Target, schedule_of
from tools.schedule import Once, Schedule


async def test_create_goes_through_the_engine_and_its_limits(world: World) -> None:
    async with running_site(world, max_job_creations_per_minute=2) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        engine = site.bot.runtime.engine
        status, _ = await web.post(
            "/jobs/new", {"what": "call mom", "when": "tomorrow 9am", "repeat": "daily"}
        )
        assert status == 302
        [job] = await engine.list_jobs(owner_id=world.alice.id)
        assert job.command == "call mom" and job.guild_id is None  # in Alice's DMs
        assert job.kind == "recurring" and job.next_run_at == datetime(2026, 11, 24, 9, tzinfo=UTC)
        # a time in the past: refused with a message saying what to type instead
        status, _ = await web.post("/jobs/new", {"what": "x", "when": "yesterday 9am"})
        _, page = await web.page("/jobs")
        assert "past" in page
        # the engine's per-minute creation limit applies here as in chat
        await web.post("/jobs/new", {"what": "two", "when": "in 2 hours"})
        await web.post("/jobs/new", {"what": "three", "when": "in 3 hours"})
        _, page = await web.page("/jobs")
        assert "wait a moment" in page
        assert len(await engine.list_jobs(owner_id=world.alice.id)) == 2
        # a mass mention is refused by the same check as everywhere else
        await web.post("/jobs/new", {"what": "@everyone hi", "when": "in 4 hours"})
        _, page = await web.page("/jobs")
        assert "@everyone" in page and len(await engine.list_jobs(owner_id=world.alice.id)) == 2


async def test_edit_text_repeat_and_bad_time(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        job = await site.job(world.alice.id, "old text", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        await web.page(f"/jobs/{job.id}")
        status, _ = await web.post(
            f"/jobs/{job.id}/edit", {"what": "new text", "when": "", "repeat": "every monday"}
        )
        assert status == 302
        edited = await site.bot.runtime.engine.get(job.id)
        assert edited.command == "new text" and "every Monday" in schedule_of(edited).describe()
        status, _ = await web.post(f"/jobs/{job.id}/edit", {"until": "3 times"})
        ended = await site.bot.runtime.engine.get(job.id)
        assert ended.max_runs == 3 and "every Monday" in schedule_of(ended).describe()
        await web.post(f"/jobs/{job.id}/edit", {"when": "banana o'clock"})
        _, page = await web.page(f"/jobs/{job.id}")
        assert "couldn" in page and "Try for example" in page
        assert (await site.bot.runtime.engine.get(job.id)).next_run_at == ended.next_run_at


async def test_preview_says_what_a_time_means(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        async with web.http.get(
            f"{site.base}/preview", params={"when": "tomorrow 9am", "repeat": "daily"}
        ) as r:
            data = await r.json()
        # the slash commands' own preview lines, then the schedule and its next runs
        assert data["ok"] and data["text"].startswith("Tue 24 Nov 09:00 (UTC) — in 25 h")
        assert "every day at 09:00" in data["text"] and len(data["runs"]) == 5
        assert data["runs"][0] == "Tue 24 Nov 2026, 09:00"
        async with web.http.get(f"{site.base}/preview", params={"when": "whenever"}) as r:
            data = await r.json()
        assert not data["ok"] and "not understood" in data["text"]
        async with web.http.get(f"{site.base}/preview", params={"when": "yesterday 9am"}) as r:
            data = await r.json()
        assert not data["ok"] and "past" in data["text"]


async def test_job_page_says_who_it_pings(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        now = world.clock.now()
        job = await site.bot.runtime.engine.create(
            target=Target(world.alice.id, world.channel.id, world.guild.id),
            command="standup",
            schedule=Schedule(Once(now + timedelta(hours=1)), "UTC"),
            kind="reminder",
            audience=Audience(users=(world.bob.id,)),
        )
        await web.sign_in(world.alice.id)
        _, page = await web.page(f"/jobs/{job.id}")
        pings = page.split("<dt>Pings</dt><dd>")[1].split("</dd>")[0]
        assert pings == "you and @bob", pings


async def test_zone_is_validated_and_used(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        await web.post("/zone", {"zone": "Mars/Olympus"})
        _, page = await web.page("/jobs")
        assert "know the zone" in page
        await web.post("/zone", {"zone": "Berlin"})
        assert await UserSettingsStore(site.bot.runtime.db).tz(world.alice.id) == "Europe/Berlin"
        async with web.http.get(f"{site.base}/preview", params={"when": "tomorrow 9am"}) as r:
            assert "(Europe/Berlin)" in (await r.json())["text"]


async def test_writes_are_rate_limited(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        statuses = [(await web.post("/zone", {"zone": "UTC"}))[0] for _ in range(31)]
        assert statuses[:30] == [302] * 30 and statuses[30] == 429


async def test_live_stream_says_changed_when_a_job_is_made_elsewhere(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        async with web.http.get(f"{site.base}/events") as r:
            assert r.headers["Content-Type"].startswith("text/event-stream")
            first = await r.content.readline()
            assert first.startswith(b"retry:")
            await site.job(world.alice.id, "made in chat", guild=world.guild.id)

            async def changed() -> None:
                while (await r.content.readline()).strip() != b"event: changed":
                    pass

            await asyncio.wait_for(changed(), 10)


async def test_cli_prints_a_one_time_login_link(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_site(world) as site, site.client() as web:
        settings = site.bot.runtime.settings
        monkeypatch.setenv("WEB_BASE_URL", site.base)
        monkeypatch.setenv("DISCORD_TOKEN", "fake-token")
        monkeypatch.setenv("DATABASE_URL", settings.database_url)
        result = CliRunner().invoke(cli, ["web", "login-link", "--user", str(world.alice.id)])
        assert result.exit_code == 0, result.output
        link = result.output.strip()
        assert link.startswith(f"{site.base}/auth/link?t=")
        # the bot's clock is the test's; the CLI used the wall clock, so the link is valid
        # for ten minutes from now in real time: sign in with it
        await world.clock.set(datetime.now(UTC))
        async with web.http.get(link, allow_redirects=False) as r:
            assert r.headers["Location"] == "/jobs"
        assert (await web.page("/jobs"))[0] == 200


async def test_web_port_alone_serves_the_dashboard_and_health(world: World) -> None:
    from tests.web.site import free_port, web_settings

    port = free_port()
    settings = web_settings(world, port) | {"health_port": None, "web_port": port}
    async with running_bot(world, **settings), aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
            assert r.status == 200
        async with http.get(f"http://127.0.0.1:{port}/login") as r:
            assert r.status == 200 and "Sign in with Discord" in await r.text()
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]


async def test_an_open_live_stream_does_not_hold_up_shutdown(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        response = await web.http.get(f"{site.base}/events")
        assert (await response.content.readline()).startswith(b"retry:")
        started = asyncio.get_running_loop().time()
        await site.bot.health.stop()  # what `homar run` does on SIGTERM
        assert asyncio.get_running_loop().time() - started < 5  # not aiohttp's 60 s wait
        response.close()


async def test_a_change_between_page_and_stream_still_updates_the_page(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        _, page = await web.page("/jobs")
        events = re.search(r'data-live="([^"]+)"', page)
        assert events is not None
        # the job appears after the page was rendered, before its script opens the stream
        await site.job(world.alice.id, "made in between", guild=world.guild.id)
        async with web.http.get(f"{site.base}{events.group(1)}") as r:

            async def changed() -> None:
                while (await r.content.readline()).strip() != b"event: changed":
                    pass

            await asyncio.wait_for(changed(), 5)


async def test_export_then_import_makes_the_jobs_yours_in_your_dms(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        engine = site.bot.runtime.engine
        mine = await site.job(world.alice.id, "water the plants", guild=world.guild.id, every=True)
        await site.job(world.bob.id, "bob's own", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        async with web.http.get(f"{site.base}/export.json") as r:
            assert r.status == 200 and "attachment" in r.headers["Content-Disposition"]
            exported = await r.text()
        assert "water the plants" in exported and "bob's own" not in exported
        async with web.http.get(f"{site.base}/export.ics") as r:
            assert (await r.text()).startswith("BEGIN:VCALENDAR")
        # A file claiming Bob as the owner in a server channel: imported as Alice's, in her DMs.
        doc = json.loads(exported)
        doc["jobs"][0] |= {"owner_id": world.bob.id, "command": "planted by a file"}
        await engine.cancel(mine.id)  # not a duplicate of the open one
        form = aiohttp.FormData()
        form.add_field("csrf", web.csrf)
        form.add_field("file", json.dumps(doc), filename="jobs.json")
        async with web.http.post(
            f"{site.base}/import", data=form, headers={"Origin": site.base}, allow_redirects=False
        ) as r:
            assert r.status == 302
        _, page = await web.page("/jobs")
        assert "Imported 1 job" in page
        [made] = await engine.list_jobs(owner_id=world.alice.id)
        assert made.command == "planted by a file" and made.guild_id is None
        assert made.channel_id != world.channel.id
        assert [j.command for j in await engine.list_jobs(owner_id=world.bob.id)] == ["bob's own"]
        # without the form's token nothing is imported
        form = aiohttp.FormData()
        form.add_field("file", json.dumps(doc), filename="jobs.json")
        async with web.http.post(
            f"{site.base}/import", data=form, headers={"Origin": site.base}, allow_redirects=False
        ) as r:
            assert r.status == 403


async def test_a_new_zone_offers_to_move_your_jobs_as_timezone_set_does(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        engine = site.bot.runtime.engine
        job = await site.job(world.alice.id, "stand up", guild=world.guild.id)  # 2 h out, UTC
        theirs = await site.job(world.bob.id, "bob's", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        await web.post("/zone", {"zone": "Berlin"})
        _, page = await web.page("/jobs")
        assert "Your time zone is now Europe/Berlin" in page
        assert "1 of your jobs runs in UTC" in page  # the offer, as /timezone set makes it
        status, _ = await web.post("/zone/move", {"from": "UTC"})
        assert status == 302
        moved = await engine.get(job.id)
        assert moved.tz == "Europe/Berlin"  # the same wall-clock time, now in Berlin
        assert moved.next_run_at == job.next_run_at - timedelta(hours=1)
        _, page = await web.page("/jobs")
        assert "Moved 1 job to Europe/Berlin" in page and "of your jobs runs in" not in page
        assert (await engine.get(theirs.id)).tz == "UTC"  # only the viewer's own jobs
        await web.post("/zone/move", {"from": "Mars/Olympus"})
        _, page = await web.page("/jobs")
        assert "know the zone" in page
