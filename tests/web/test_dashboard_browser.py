"""The dashboard in a real headless browser (Debian's chromium driven by Playwright):
sign in through the fake Discord's OAuth page, see jobs made by chat, approve a proposal,
edit a time with the live preview, pause/resume/cancel, and watch a job fire live.

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

        # Pause and resume, through the same engine commands as /jobs.
        await page.get_by_role("button", name="Pause").click()
        await expect(page.locator("h1 .badge")).to_have_text("paused")
        assert (await engine.get(cake.id)).status == JobStatus.PAUSED
        await page.get_by_role("button", name="Resume").click()
        await expect(page.locator("h1 .badge")).to_have_text("active")

        # Watch it fire live: move the clock past its time; the page updates by itself.
        await expect(page.locator("body")).to_have_attribute("data-live-ready", "1")
        await world.clock.set(datetime(2026, 11, 24, 9, 0, 1, tzinfo=UTC))
        await expect(page.locator("h1 .badge")).to_have_text("completed", timeout=20_000)
        await expect(page.locator(".timeline")).to_contain_text("delivered")
        await page.screenshot(path=str(out / "job-history.png"), full_page=True)
        await settle(bot)

        # Cancel the approved job from its page.
        await page.goto(f"{site.base}/jobs/{stretch.id}")
        await page.get_by_role("button", name="Cancel").click()
        await expect(page.locator("h1 .badge")).to_have_text("cancelled")
        assert (await engine.get(stretch.id)).status == JobStatus.CANCELLED

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
