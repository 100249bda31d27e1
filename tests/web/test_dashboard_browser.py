"""The dashboard in a real headless browser (Debian's chromium driven by Playwright):
sign in through the fake Discord's OAuth page, see jobs made by chat, approve a proposal,
edit a time with the live preview, who a job pings and its follow-ups, pause/resume/cancel,
watch a job fire live and answer it (Done), make a reminder, export it (JSON and .ics),
cancel it and import the file back.

Set HOMAR_SCREENSHOTS=docs/screenshots to refresh the README's screenshots.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage.models import JobStatus
from tests.bot.harness import World, settle
from tests.web.site import running_site
from tools.audience import Audience

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium; "
    ".ci/run installs it)",
)


def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("HOMAR_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def test_dashboard_in_a_real_browser(world: World, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect

    out = shots(tmp_path)
    team = world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_site(world) as site, async_playwright() as pw:
        bot = site.bot
        engine = bot.runtime.engine
        # Jobs made by chat: a reminder, and a recurring job the agent must have approved.
        said = await world.fake.user_says(
            world.channel.id,
            world.alice.id,
            f"{world.mention()} remind me in 10 minutes to take the cake out",
        )
        await world.bot_says(said.id)
        asked = await world.fake.user_says(
            world.channel.id, world.alice.id, f"{world.mention()} every weekday at 8 stretch"
        )
        await world.bot_says(asked.id, lambda m: bool(m.custom_ids()))
        await settle(bot)
        [cake] = await engine.list_jobs(owner_id=world.alice.id)
        assert "cake" in cake.command

        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = await browser.new_context(viewport={"width": 1100, "height": 900})
        page = await context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        # Sign in through the fake Discord's OAuth page.
        world.fake.oauth.sign_in_as = world.alice.id
        await page.goto(f"{site.base}/login")
        await page.screenshot(path=str(out / "login.png"))
        await page.get_by_role("link", name="Sign in with Discord").click()
        await page.locator("#authorize").click()
        await page.wait_for_url(f"{site.base}/jobs")
        await expect(page.locator(".job-link").first).to_contain_text("take the cake out")
        await expect(page.locator(".proposal")).to_contain_text("stretch")
        await page.screenshot(path=str(out / "jobs.png"), full_page=True)

        # Approve the pending proposal: the agent creates the job in the thread.
        await page.get_by_role("button", name="Approve").click()
        await expect(page.locator(".flash")).to_contain_text("Approved")
        await settle(bot)
        jobs = await engine.list_jobs(owner_id=world.alice.id)
        stretch = next(j for j in jobs if j.id != cake.id)
        assert "stretch" in stretch.command
        await expect(page.locator(f"#job-{stretch.id}")).to_be_visible()  # arrives live

        # Edit the reminder's time with the live preview.
        await page.locator(f"#job-{cake.id} a").click()
        await page.wait_for_url(f"{site.base}/jobs/{cake.id}")
        await page.get_by_label("New time").fill("tomorrow 9am")
        preview = page.locator("output.preview")
        await expect(preview).to_contain_text("Tue 24 Nov 2026 at 09:00")
        await page.screenshot(path=str(out / "job-edit-preview.png"), full_page=True)
        await page.get_by_role("button", name="Save changes").click()
        await expect(page.locator(".flash")).to_contain_text(f"Updated #{cake.id}")
        edited = await engine.get(cake.id)
        assert edited.next_run_at == datetime(2026, 11, 24, 9, 0, tzinfo=UTC)

        # Who it pings (checked as Discord checks /remind to:) and its follow-ups.
        await page.get_by_label("Who it pings", exact=True).fill("me @team")
        await page.get_by_label("Nudge again if there's no answer").check()
        await page.get_by_label("Every", exact=True).fill("10 minutes")
        await page.get_by_role("button", name="Save changes").click()
        await expect(page.locator(".flash")).to_contain_text(f"Updated #{cake.id}")
        await expect(page.locator(".facts")).to_contain_text("you and @team")
        await expect(page.locator(".facts")).to_contain_text("every 10 min, up to 2 times")
        edited = await engine.get(cake.id)
        assert Audience.from_json(edited.audience).roles == (team.id,)
        assert edited.follow_up == {"interval_s": 600, "max": 2}

        # Pause and resume, through the same engine commands as /jobs.
        await page.get_by_role("button", name="Pause").click()
        await expect(page.locator("h1 .badge")).to_have_text("paused")
        assert (await engine.get(cake.id)).status == JobStatus.PAUSED
        await page.get_by_role("button", name="Resume").click()
        await expect(page.locator("h1 .badge")).to_have_text("active")

        # Watch it fire live: move the clock past its time; the page updates by itself and
        # asks for an answer (its follow-ups wait for one), as its Discord buttons do.
        await expect(page.locator("body")).to_have_attribute("data-live-ready", "1")
        await world.clock.set(datetime(2026, 11, 24, 9, 0, 1, tzinfo=UTC))
        await expect(page.locator("#answer-h")).to_be_visible(timeout=20_000)
        await expect(page.locator(".timeline")).to_contain_text("delivered")
        await page.screenshot(path=str(out / "job-history.png"), full_page=True)
        await settle(bot)
        said = world.fake.messages(cake.channel_id)
        assert any(team.id in world.fake.pinged(m).roles for m in said)  # the edited audience
        await page.get_by_role("button", name="Done", exact=True).click()
        await expect(page.locator(".flash")).to_contain_text("no more nudges")
        await expect(page.locator("h1 .badge")).to_have_text("completed")

        # Cancel the approved job from its page.
        await page.goto(f"{site.base}/jobs/{stretch.id}")
        await page.get_by_role("button", name="Cancel").click()
        await expect(page.locator("h1 .badge")).to_have_text("cancelled")
        assert (await engine.get(stretch.id)).status == JobStatus.CANCELLED

        # Make a reminder here, export it (JSON and calendar), cancel it, import the file.
        await page.goto(f"{site.base}/jobs")
        await page.get_by_label("What", exact=True).fill("renew the passport")
        await page.get_by_label("When", exact=True).fill("friday 10am")
        await page.get_by_role("button", name="Schedule").click()
        await expect(page.locator(".flash")).to_contain_text("Scheduled #")
        [passport] = await engine.list_jobs(owner_id=world.alice.id)
        assert passport.command == "renew the passport" and passport.guild_id is None
        await page.goto(f"{site.base}/jobs")
        async with page.expect_download() as json_download:
            await page.get_by_role("link", name="Export JSON").click()
        exported = tmp_path / "homar-jobs.json"
        await (await json_download.value).save_as(exported)
        assert "renew the passport" in exported.read_text()
        async with page.expect_download() as ics_download:
            await page.get_by_role("link", name="Export calendar (.ics)").click()
        calendar = tmp_path / "homar-jobs.ics"
        await (await ics_download.value).save_as(calendar)
        assert calendar.read_text().startswith("BEGIN:VCALENDAR")
        assert "renew the passport" in calendar.read_text()
        await page.goto(f"{site.base}/jobs/{passport.id}")
        await page.get_by_role("button", name="Cancel").click()
        await expect(page.locator("h1 .badge")).to_have_text("cancelled")
        await page.goto(f"{site.base}/jobs")
        await expect(page.locator(".job-link", has_text="renew the passport")).to_have_count(0)
        await page.get_by_label("File to import (.json or .ics)").set_input_files(exported)
        await page.get_by_role("button", name="Import", exact=True).click()
        await expect(page.locator(".flash")).to_contain_text("Imported 1 job")
        await expect(page.locator(".job-link", has_text="renew the passport")).to_be_visible()
        [restored] = await engine.list_jobs(owner_id=world.alice.id)
        assert restored.id != passport.id and restored.next_run_at == passport.next_run_at

        # On a phone, in dark mode.
        phone = await browser.new_context(
            viewport={"width": 390, "height": 844}, color_scheme="dark", is_mobile=True
        )
        await phone.add_cookies(await context.cookies())
        mobile = await phone.new_page()
        await mobile.goto(f"{site.base}/jobs?status=all")
        await expect(mobile.locator(".job-link").first).to_be_visible()
        await mobile.screenshot(path=str(out / "jobs-phone-dark.png"), full_page=True)
        assert not [e for e in errors if "Content Security Policy" in e], errors
        await browser.close()
        await settle(bot, timeout=timedelta(seconds=30).total_seconds())
