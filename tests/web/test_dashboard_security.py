"""The dashboard's authorization and web security, against the running bot and fake Discord:
other people's jobs, moderators, CSRF, cross-site requests, hostile text, OAuth state."""

from __future__ import annotations

from storage.models import JobStatus
from tests.bot.harness import World
from tests.web.site import running_site


async def test_signed_out_pages_send_you_to_sign_in(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        for path in ("/jobs", "/jobs/1", "/preview?when=tomorrow"):
            status, _ = await web.page(path)
            assert status == 302
        status, _ = await web.post("/jobs/1/cancel", csrf=False)
        assert status == 302


async def test_sign_in_through_discord_shows_your_jobs_only(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        mine = await site.job(world.alice.id, "water the plants", guild=world.guild.id)
        theirs = await site.job(world.bob.id, "bob's secret plan", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        status, page = await web.page("/jobs")
        assert status == 200
        assert "water the plants" in page and f"#{mine.id}" in page
        assert "secret plan" not in page and f"/jobs/{theirs.id}" not in page
        assert world.fake.oauth.exchanges == 1


async def test_another_users_job_in_the_url_is_refused_and_unchanged(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        theirs = await site.job(world.bob.id, "bob's job", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        status, _ = await web.page(f"/jobs/{theirs.id}")
        assert status == 403
        for action in ("pause", "cancel", "run-now"):
            status, _ = await web.post(f"/jobs/{theirs.id}/{action}")
            assert status == 403, action
        status, _ = await web.post(f"/jobs/{theirs.id}/edit", {"what": "hijacked"})
        assert status == 403
        job = await site.bot.runtime.engine.get(theirs.id)
        assert job.status == JobStatus.ACTIVE and job.command == "bob's job"
        assert job.next_run_at == theirs.next_run_at


async def test_another_users_approval_in_a_form_is_refused(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        bot = site.bot
        msg = await world.fake.user_says(
            world.channel.id, world.bob.id, f"{world.mention()} every weekday at 8 stretch"
        )
        await world.bot_says(msg.id, lambda m: bool(m.custom_ids()))
        [row] = await bot.runtime.approvals.store.pending()
        assert row.user_id == world.bob.id
        await web.sign_in(world.alice.id)
        _, page = await web.page("/jobs")
        assert "stretch" not in page  # Bob's proposal isn't shown to Alice
        status, _ = await web.post(
            "/approvals/decide", {"approval_id": str(row.id), "verdict": "approve"}
        )
        assert status == 403
        still = await bot.runtime.approvals.store.get(row.id)
        assert still is not None and still.status == "pending"
        assert await bot.runtime.engine.list_jobs(owner_id=world.bob.id) == []


async def test_moderator_sees_the_servers_jobs_but_no_ones_dms(world: World) -> None:
    mods = world.fake.add_role(world.guild.id, "mods", manage_messages=True)
    world.fake.guilds[world.guild.id].members[world.bob.id].roles.append(mods.id)
    async with running_site(world) as site, site.client() as web:
        server_job = await site.job(world.alice.id, "alice in the server", guild=world.guild.id)
        dm_job = await site.job(world.alice.id, "alice private dm", channel=999)
        await web.sign_in(world.bob.id)
        _, page = await web.page("/jobs")
        assert "alice in the server" in page
        assert "alice private dm" not in page
        status, _ = await web.page(f"/jobs/{dm_job.id}")
        assert status == 403
        status, _ = await web.post(f"/jobs/{dm_job.id}/cancel")
        assert status == 403
        assert (await site.bot.runtime.engine.get(dm_job.id)).status == JobStatus.ACTIVE
        # the server job: a moderator may manage it, through the same engine command
        status, _ = await web.post(f"/jobs/{server_job.id}/pause")
        assert status == 302
        assert (await site.bot.runtime.engine.get(server_job.id)).status == JobStatus.PAUSED


async def test_a_plain_member_does_not_see_the_servers_jobs(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await site.job(world.alice.id, "alice in the server", guild=world.guild.id)
        await web.sign_in(world.bob.id)
        _, page = await web.page("/jobs")
        assert "alice in the server" not in page


async def test_writes_without_csrf_or_from_another_site_are_refused(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        mine = await site.job(world.alice.id, "keep me", guild=world.guild.id)
        await web.sign_in(world.alice.id)
        status, body = await web.post(f"/jobs/{mine.id}/cancel", csrf=False)
        assert status == 403 and "security token" in body
        status, body = await web.post(f"/jobs/{mine.id}/cancel", {"csrf": "forged"}, csrf=False)
        assert status == 403
        status, body = await web.post(f"/jobs/{mine.id}/cancel", origin="https://evil.example")
        assert status == 403 and "another site" in body
        status, _ = await web.post("/zone", {"zone": "Europe/Berlin"}, csrf=False)
        assert status == 403
        assert (await site.bot.runtime.engine.get(mine.id)).status == JobStatus.ACTIVE
        # the same request with the token from our own page goes through
        status, _ = await web.post(f"/jobs/{mine.id}/cancel")
        assert status == 302
        assert (await site.bot.runtime.engine.get(mine.id)).status == JobStatus.CANCELLED


async def test_hostile_text_renders_inert(world: World) -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    async with running_site(world) as site, site.client() as web:
        job = await site.job(world.alice.id, hostile, guild=world.guild.id)
        await web.sign_in(world.alice.id)
        for path in ("/jobs", f"/jobs/{job.id}"):
            _, page = await web.page(path)
            assert "<script>alert" not in page and "<img src=x" not in page
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


async def test_pages_carry_a_strict_csp_and_hardened_cookies(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        await web.sign_in(world.alice.id)
        async with web.http.get(f"{site.base}/jobs") as r:
            csp = r.headers["Content-Security-Policy"]
            page = await r.text()
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert "<script>" not in page  # no inline scripts at all
        cookie = next(c for c in web.http.cookie_jar if c.key == "homar_session")
        assert cookie["httponly"] and cookie["samesite"] == "Lax"


async def test_oauth_state_mismatch_is_refused(world: World) -> None:
    async with running_site(world) as site, site.client() as web:
        world.fake.oauth.sign_in_as = world.alice.id
        async with web.http.get(f"{site.base}/auth/discord", allow_redirects=False) as r:
            assert r.status == 302
        # a code for Alice, but a state the dashboard never issued (a login-CSRF attempt)
        world.fake.oauth.codes["stolen"] = (world.alice.id, f"{site.base}/auth/callback")
        async with web.http.get(
            f"{site.base}/auth/callback?code=stolen&state=forged", allow_redirects=False
        ) as r:
            assert r.status == 403
        assert world.fake.oauth.exchanges == 0
        status, _ = await web.page("/jobs")
        assert status == 302  # still signed out


async def test_sign_out_everywhere_ends_every_session(world: World) -> None:
    async with running_site(world) as site, site.client() as one, site.client() as two:
        await one.sign_in(world.alice.id)
        await two.sign_in(world.alice.id)
        status, _ = await one.post("/logout/everywhere")
        assert status == 302
        assert (await two.page("/jobs"))[0] == 302
        assert (await one.page("/jobs"))[0] == 302


async def test_login_link_works_once(world: World) -> None:
    from bot.web.signin import make_login_link

    async with running_site(world) as site, site.client() as web, site.client() as other:
        settings = site.bot.runtime.settings
        link = make_login_link(settings, world.alice.id, world.clock.now())
        path = link.removeprefix(site.base)
        async with web.http.get(f"{site.base}{path}", allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"] == "/jobs"
        assert (await web.page("/jobs"))[0] == 200
        async with other.http.get(f"{site.base}{path}", allow_redirects=False) as r:
            assert r.headers["Location"] == "/login"  # used already
        assert (await other.page("/jobs"))[0] == 302
        forged = path[:-3] + ("AAA" if not path.endswith("AAA") else "BBB")
        async with other.http.get(f"{site.base}{forged}", allow_redirects=False) as r:
            assert r.headers["Location"] == "/login"
        assert (await other.page("/jobs"))[0] == 302


async def test_an_expired_login_link_is_refused(world: World) -> None:
    from datetime import timedelta

    from bot.web.signin import make_login_link

    async with running_site(world) as site, site.client() as web:
        settings = site.bot.runtime.settings
        old = make_login_link(settings, world.alice.id, world.clock.now() - timedelta(minutes=11))
        async with web.http.get(old, allow_redirects=False) as r:
            assert r.headers["Location"] == "/login"
        _, page = await web.page("/login")
        assert "expired" in page
        assert (await web.page("/jobs"))[0] == 302
