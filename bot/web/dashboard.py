"""The dashboard's pages and actions (aiohttp handlers).

Every write goes through the same command as on Discord, with the Actor the bot computes:
`/remind`, `/jobs` and `/timezone` (`bot/commands`), a reminder's Done/Snooze
(`bot/choices`), Approve/Deny (the approval path of `bot/approvals.py`) and the import of
`homar jobs import` (`bot/job_files`). Nothing here writes to a job table directly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from aiohttp import web

from bot import choices, job_files
from bot.commands import Caller, jobs, timezone, zone_for
from bot.commands.remind import follow_up_config, remind
from bot.settings import Settings
from bot.slash.preview import repeat_preview, until_preview, when_preview
from bot.slash.when import plan, read_instant
from bot.web import live, present
from bot.web.access import GuildView, Permissions, Viewer
from bot.web.guard import SESSION_COOKIE, STATE_COOKIE, Guard, security_headers
from bot.web.present import plain_mentions
from bot.web.signin import SignInError, authorize_url, exchange_code, read_login_link
from storage.approvals import ApprovalStore
from storage.jobs import Job
from storage.models import JobKind, JobStatus
from storage.todos import TodoStore
from storage.user_settings import UserSettingsStore
from storage.web_sessions import SignedIn, WebSessionStore
from tools.approval import Outcome, next_runs, pending_from_row
from tools.audience import Addressing, Audience, AudienceResolver, check_change
from tools.errors import JobNotFound, NotAllowed, UserError
from tools.jobs import reminders as followups
from tools.jobs.model import Actor, Target, schedule_of
from tools.schedule import ScheduleError

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
FLASH_COOKIE = "homar_flash"
STATUSES = ("open", "active", "paused", "completed", "cancelled", "failed", "all")
ACTIONS = ("pause", "resume", "run-now", "cancel", "done", "snooze")
LIST_LIMIT = 500
SNOOZE_LABELS = (("10m", "10 minutes"), ("1h", "1 hour"), ("tomorrow", "Tomorrow 09:00"))
MAX_IMPORT_BYTES = 512 * 1024

Decide = Callable[[int, int, bool], Awaitable[Outcome]]


@dataclass(frozen=True)
class Filters:
    server: str = ""  # "" any, "dm", or a guild id
    thread: str = ""
    kind: str = ""
    status: str = "open"
    q: str = ""

    @classmethod
    def of(cls, request: web.Request) -> Filters:
        get = request.query.get
        status = get("status", "open")
        return cls(
            server=get("server", "")[:25],
            thread=get("thread", "")[:25],
            kind=get("kind", "") if get("kind", "") in JobKind.ALL else "",
            status=status if status in STATUSES else "open",
            q=get("q", "")[:200],
        )

    def keep(self, job: Job) -> bool:
        if self.server == "dm" and job.guild_id is not None:
            return False
        if self.server.isdigit() and job.guild_id != int(self.server):
            return False
        if self.thread.isdigit() and job.channel_id != int(self.thread):
            return False
        if self.kind and job.kind != self.kind:
            return False
        if self.status == "open" and job.status not in JobStatus.OPEN:
            return False
        if self.status not in ("open", "all") and job.status != self.status:
            return False
        return not self.q or self.q.casefold() in job.command.casefold()


class Dashboard:
    """The web app: sign-in, pages, actions and the live event stream."""

    def __init__(
        self,
        runtime: Runtime,
        view: GuildView,
        decide: Decide,
    ) -> None:
        settings = runtime.settings
        assert settings.web_base_url is not None
        self.runtime = runtime
        self.settings: Settings = settings
        self.view = view
        self.decide = decide
        self.sessions = WebSessionStore(runtime.db)
        self.guard = Guard(settings, self.sessions)
        self.permissions = Permissions(view, settings)
        self.approval_store = ApprovalStore(runtime.db)
        self.todos = TodoStore(runtime.db)
        self.zones = UserSettingsStore(runtime.db)
        self.closing = asyncio.Event()  # set when the server stops: live streams end
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,  # every value is escaped: a job's text is data, never markup
            undefined=jinja2.StrictUndefined,
        )

    # ------------------------------------------------------------ wiring

    def install(self, app: web.Application) -> None:
        app.middlewares.append(security_headers)
        app.on_shutdown.append(self._stop_streams)
        r = app.router
        r.add_get("/", self.home)
        r.add_get("/login", self.login)
        r.add_get("/auth/discord", self.auth_start)
        r.add_get("/auth/callback", self.auth_callback)
        r.add_get("/auth/link", self.auth_link)
        r.add_post("/logout", self.logout)
        r.add_post("/logout/everywhere", self.logout_everywhere)
        r.add_get("/jobs", self.jobs)
        r.add_post("/jobs/new", self.create)
        r.add_get("/jobs/{id:[0-9]+}", self.job)
        r.add_post("/jobs/{id:[0-9]+}/edit", self.edit)
        r.add_post("/jobs/{id:[0-9]+}/{action:[a-z-]+}", self.act)
        r.add_post("/approvals/decide", self.decide_approval)
        r.add_post("/zone", self.set_zone)
        r.add_post("/zone/move", self.move_zone)
        r.add_get("/export.{fmt:(json|ics)}", self.export)
        r.add_post("/import", self.import_file)
        r.add_get("/preview", self.preview)
        r.add_get("/events", self.events)
        r.add_static("/static", HERE / "static", append_version=False)

    def now(self) -> datetime:
        return self.runtime.clock.now()

    async def _stop_streams(self, _app: web.Application) -> None:
        self.closing.set()

    # ------------------------------------------------------------ helpers

    def render(self, name: str, status: int = 200, **values: Any) -> web.Response:
        body = self.templates.get_template(name).render(**values)
        return web.Response(text=body, status=status, content_type="text/html", charset="utf-8")

    def flash(self, response: web.StreamResponse, text: str, kind: str = "ok") -> None:
        self.guard.set_cookie(response, FLASH_COOKIE, json.dumps([kind, text[:500]]), 60)

    def take_flash(self, request: web.Request, response: web.StreamResponse) -> list[str] | None:
        raw = self.guard.unseal(request.cookies.get(FLASH_COOKIE))
        if raw is None:
            return None
        self.guard.clear_cookie(response, FLASH_COOKIE)
        try:
            kind, text = json.loads(raw)
        except (ValueError, TypeError):
            return None
        return [str(kind), str(text)]

    async def signed_in(self, request: web.Request) -> SignedIn:
        signed = await self.guard.session(request, self.now())
        if signed is None:
            raise web.HTTPFound("/login")
        return signed

    async def viewer_of(self, signed: SignedIn) -> Viewer:
        return await self.permissions.viewer(signed.user_id, signed.user_name, signed.guild_ids)

    async def tz_of(self, user_id: int) -> str:
        return await self.zones.tz(user_id) or self.settings.default_timezone

    async def visible_jobs(self, viewer: Viewer, *, closed: bool) -> list[Job]:
        """The viewer's own jobs (servers and DMs) plus every job of a server they moderate."""
        engine = self.runtime.engine
        seen: dict[int, Job] = {}
        for job in await engine.list_jobs(
            owner_id=viewer.user_id, include_closed=closed, limit=LIST_LIMIT
        ):
            seen[job.id] = job
        for gid in viewer.moderates:
            for job in await engine.list_jobs(
                guild_id=gid, include_closed=closed, limit=LIST_LIMIT
            ):
                seen.setdefault(job.id, job)
        return list(seen.values())

    async def job_for(self, viewer: Viewer, job_id: int) -> Job:
        """The job if the viewer may see it (the engine's own rule), else 403/404."""
        try:
            job = await self.runtime.engine.get(job_id)
            return await self.runtime.engine.get(job_id, viewer.actor(job.guild_id))
        except JobNotFound:
            raise web.HTTPNotFound(text=f"There is no job #{job_id}.") from None
        except NotAllowed:
            raise web.HTTPForbidden(text=f"Job #{job_id} isn't yours to see or change.") from None

    def back(self, to: str, text: str, kind: str = "ok") -> web.Response:
        """Post/redirect/get: back to a page, with a one-time message for it."""
        response = web.Response(status=302, headers={"Location": to})
        self.flash(response, text, kind)
        return response

    # ------------------------------------------------------------ sign-in

    async def home(self, request: web.Request) -> web.StreamResponse:
        signed = await self.guard.session(request, self.now())
        raise web.HTTPFound("/jobs" if signed else "/login")

    async def login(self, request: web.Request) -> web.Response:
        response = self.render(
            "login.html",
            oauth=bool(self.settings.discord_client_id and self.settings.discord_client_secret),
            viewer=None,
            csrf="",
        )
        return self._with_flash(request, response)

    async def _limit_sign_in(self, request: web.Request) -> None:
        if not await self.guard.sign_ins.allow(self.guard.client_address(request)):
            raise web.HTTPTooManyRequests(text="Too many sign-in attempts; wait a minute.")

    async def auth_start(self, request: web.Request) -> web.StreamResponse:
        await self._limit_sign_in(request)
        state = secrets.token_urlsafe(24)
        response = web.Response(
            status=302, headers={"Location": authorize_url(self.settings, state)}
        )
        self.guard.set_cookie(response, STATE_COOKIE, state, 600)
        return response

    async def auth_callback(self, request: web.Request) -> web.StreamResponse:
        await self._limit_sign_in(request)
        expected = self.guard.unseal(request.cookies.get(STATE_COOKIE))
        state = request.query.get("state", "")
        if expected is None or not secrets.compare_digest(state, expected):
            raise web.HTTPForbidden(text="Sign-in refused: the state did not match; start again.")
        code = request.query.get("code")
        if not code:
            return self.back("/login", "Discord did not sign you in; try again.", "error")
        try:
            user = await exchange_code(self.settings, code)
        except SignInError as exc:
            return self.back("/login", str(exc), "error")
        response = web.Response(status=302, headers={"Location": "/jobs"})
        self.guard.clear_cookie(response, STATE_COOKIE)
        await self.guard.start_session(
            response, user_id=user.id, user_name=user.name, guild_ids=user.guild_ids, now=self.now()
        )
        return response

    async def auth_link(self, request: web.Request) -> web.StreamResponse:
        await self._limit_sign_in(request)
        now = self.now()
        try:
            link = read_login_link(self.settings, request.query.get("t", ""), now)
        except (SignInError, ValueError, KeyError, TypeError) as exc:
            text = str(exc) if isinstance(exc, SignInError) else "That sign-in link is damaged."
            return self.back("/login", text, "error")
        if not await self.sessions.use_link(link.link_id, link.expires_at, now):
            return self.back(
                "/login", "That sign-in link was already used; make a new one.", "error"
            )
        # No OAuth guild list here: every server the bot shares (membership is checked anyway).
        guilds = self.view.guild_ids()
        await self.view.learn_users([link.user_id])
        name = self.view.user_name(link.user_id) or str(link.user_id)
        response = web.Response(status=302, headers={"Location": "/jobs"})
        await self.guard.start_session(
            response, user_id=link.user_id, user_name=name, guild_ids=guilds, now=now
        )
        return response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        signed = await self.signed_in(request)
        await self.guard.check_write(request, signed)
        await self.sessions.end(signed.token_hash)
        response = self.back("/login", "Signed out.")
        self.guard.clear_cookie(response, SESSION_COOKIE)
        return response

    async def logout_everywhere(self, request: web.Request) -> web.StreamResponse:
        signed = await self.signed_in(request)
        await self.guard.check_write(request, signed)
        ended = await self.sessions.end_all(signed.user_id)
        response = self.back("/login", f"Signed out everywhere ({ended} sign-ins ended).")
        self.guard.clear_cookie(response, SESSION_COOKIE)
        return response

    # ------------------------------------------------------------ pages

    async def jobs(self, request: web.Request) -> web.Response:
        signed = await self.signed_in(request)
        viewer = await self.viewer_of(signed)
        # Before reading what the page shows: a change after this makes the stream refresh.
        mark = await live.fingerprint(self, viewer)
        tz = await self.tz_of(viewer.user_id)
        filters = Filters.of(request)
        now = self.now()
        every = await self.visible_jobs(viewer, closed=filters.status != "open")
        shown = sorted(
            (j for j in every if filters.keep(j)),
            key=lambda j: (j.next_run_at is None, j.next_run_at or now, j.id),
        )
        cards = [
            present.card(j, viewer_id=viewer.user_id, tz=tz, view=self.view, now=now) for j in shown
        ]
        servers = {
            gid: self.view.guild_name(gid) or f"Server {gid}"
            for gid in {j.guild_id for j in every if j.guild_id is not None}
        }
        threads = {j.channel_id: present.where_of(j, self.view) for j in every}
        approvals = [
            present.approval_card(pending_from_row(row), tz)
            for row in await self.approval_store.pending()
            if row.user_id == viewer.user_id
        ]
        todo_lists = []
        channels = {j.channel_id for j in every if j.owner_id == viewer.user_id}
        channels |= set(await self.todos.channels_of(viewer.user_id))
        for channel_id in sorted(channels):
            items = await self.todos.list(channel_id)
            if items:
                name = self.view.channel_name(channel_id) or "Direct messages"
                todo_lists.append((name, items))
        # `/timezone set`'s offer, kept on the page: own open jobs still in another zone.
        elsewhere = Counter(
            j.tz for j in every if j.owner_id == viewer.user_id and j.status in JobStatus.OPEN
        )
        elsewhere.pop(tz, None)
        response = self.render(
            "jobs.html",
            moves=sorted(elsewhere.items()),
            viewer=viewer,
            csrf=signed.csrf,
            tz=tz,
            cards=cards,
            filters=filters,
            servers=sorted(servers.items(), key=lambda kv: kv[1]),
            threads=sorted(threads.items(), key=lambda kv: kv[1]),
            kinds=JobKind.ALL,
            statuses=STATUSES,
            approvals=approvals,
            todo_lists=todo_lists,
            mark=mark,
        )
        return self._with_flash(request, response)

    def _with_flash(self, request: web.Request, response: web.Response) -> web.Response:
        flash = self.take_flash(request, response)
        if flash is None:
            return response
        # Re-render with the message (cheap: pages are small) and drop the cookie.
        assert response.text is not None
        body = response.text.replace(
            "<!--flash-->",
            self.templates.get_template("flash.html").render(flash=flash),
            1,
        )
        out = web.Response(text=body, content_type="text/html", charset="utf-8")
        self.guard.clear_cookie(out, FLASH_COOKIE)
        return out

    async def job(self, request: web.Request) -> web.Response:
        signed = await self.signed_in(request)
        viewer = await self.viewer_of(signed)
        mark = await live.fingerprint(self, viewer)
        job = await self.job_for(viewer, int(request.match_info["id"]))
        tz = await self.tz_of(viewer.user_id)
        now = self.now()
        runs = await self.runtime.engine.history(job.id, viewer.actor(job.guild_id), limit=20)
        audience = Audience.from_json(job.audience)
        await self.view.learn_users([*audience.users, *audience.joined])
        schedule = schedule_of(job)
        response = self.render(
            "job.html",
            viewer=viewer,
            csrf=signed.csrf,
            tz=tz,
            job=present.card(
                job,
                viewer_id=viewer.user_id,
                tz=tz,
                view=self.view,
                now=now,
                runs=present.RUNS_SHOWN,
            ),
            repeat="" if not schedule.is_recurring else schedule.describe(),
            runs=present.timeline(runs, tz),
            open=job.status in JobStatus.OPEN,
            to=present.audience_text(audience, job.guild_id, self.view),
            places=present.places(job.guild_id, self.view),
            follow=present.follow_up_form(job),
            nags=job.kind in jobs.NAGGING_KINDS,
            # The reminder's own Done/Snooze, for its owner, while it waits for an answer.
            answer=job.owner_id == viewer.user_id and followups.pending(job),
            snooze_choices=SNOOZE_LABELS,
            mark=mark,
        )
        return self._with_flash(request, response)

    # ------------------------------------------------------------ actions

    async def act(self, request: web.Request) -> web.StreamResponse:
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        viewer = await self.viewer_of(signed)
        job_id = int(request.match_info["id"])
        action = request.match_info["action"]
        if action not in ACTIONS:
            raise web.HTTPNotFound(text="No such action.")
        job = await self.job_for(viewer, job_id)
        caller = await self.caller_for(viewer, job)
        runtime = self.runtime
        tz = caller.zone.name
        to = f"/jobs/{job_id}"
        try:
            if action == "pause":
                await jobs.pause(caller, job_id)  # its answer names /jobs resume: a button here
                text = f"Paused #{job_id}."
            elif action == "resume":
                await jobs.resume(caller, job_id)
                resumed = await runtime.engine.get(job_id)
                text = f"Resumed #{job_id}; next run {present.local(resumed.next_run_at, tz)}."
            elif action == "run-now":
                text = (await jobs.run_now(caller, job_id)).text
            elif action == "cancel":
                text = (await jobs.cancel(caller, job_id)).text
            elif action == "done":  # the reminder's Done button (its owner only)
                text = await choices.done(runtime, job_id, None, viewer.user_id)
            else:  # snooze, as the reminder's Snooze buttons and form
                choice = _field(form, "choice")
                if choice in choices.SNOOZE_CHOICES:
                    until = choices.snooze_until(choice, self.now(), tz)
                else:
                    choice = "custom"
                    until = choices.read_snooze(_field(form, "until"), self.now(), tz)
                await choices.snooze(runtime, job_id, None, viewer.user_id, until, choice)
                snoozed = await runtime.engine.get(job_id)
                text = f"Snoozed #{job_id} until {present.local(snoozed.next_run_at, tz)}."
        except NotAllowed:
            raise web.HTTPForbidden(text=f"Job #{job_id} isn't yours to change.") from None
        except UserError as exc:
            return self.back(to, _message(exc), "error")
        return self.back(to, present.plain_discord(plain_mentions(text, self.view), tz))

    async def edit(self, request: web.Request) -> web.StreamResponse:
        """The job's edit form, through `/jobs edit`'s own command (`bot.commands.jobs`).

        Only the parts the form carries change: the audience (`to`) when its text differs
        from what the page showed, the follow-ups when their fieldset was sent.
        """
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        viewer = await self.viewer_of(signed)
        job_id = int(request.match_info["id"])
        job = await self.job_for(viewer, job_id)
        caller = await self.caller_for(viewer, job)
        text = _field(form, "what")
        when = _field(form, "when")
        to = f"/jobs/{job_id}"
        tz = caller.zone.name
        try:
            now = self.now()
            audience = None
            current = Audience.from_json(job.audience)
            if "to" in form and _field(form, "to") != present.audience_text(
                current, job.guild_id, self.view
            ):
                audience = await self.read_audience(_field(form, "to"), job)
            follow_up = None
            if "follow_ups" in form:
                config = follow_up_config(
                    form.get("follow_up") == "on",
                    "dm" if form.get("escalate") == "dm" else None,
                    every=_field(form, "follow_every") or None,
                    times=_field(form, "follow_max") or None,
                )
                follow_up = config or {}
            answer = await jobs.edit(
                caller,
                job_id,
                when=read_instant(when, now=now, tz=tz) if when else None,
                what=text if text and text != job.command else None,
                repeat=_field(form, "repeat") or None,
                until=_field(form, "until") or None,
                audience=audience,
                check_audience=self.audience_check(viewer, job),
                follow_up=follow_up,
            )
        except NotAllowed:
            raise web.HTTPForbidden(text=f"Job #{job_id} isn't yours to change.") from None
        except (UserError, ScheduleError) as exc:
            return self.back(to, _message(exc), "error")
        return self.back(to, present.plain_discord(plain_mentions(answer.text, self.view), tz))

    async def caller_for(self, viewer: Viewer, job: Job) -> Caller:
        """The shared commands' caller: the viewer, acting where the job lives."""
        return Caller(
            runtime=self.runtime,
            actor=viewer.actor(job.guild_id),
            target=Target(job.owner_id, job.channel_id, job.guild_id, job.parent_channel_id),
            zone=await zone_for(self.runtime, viewer.user_id),
            in_guild=job.guild_id is not None,
        )

    def _resolver(self) -> AudienceResolver:
        resolver = self.runtime.audience_resolver
        if resolver is None:
            raise UserError("Who a job pings can only change while Homar is on Discord.")
        return resolver

    async def read_audience(self, typed: str, job: Job) -> Audience:
        """The typed audience, read by the agent's resolver (the same words as in chat)
        and checked for the job's owner, whose job pings them."""
        where = Addressing(job.owner_id, job.guild_id, job.channel_id)
        known = present.people_by_name(Audience.from_json(job.audience), job.guild_id, self.view)
        return await self._resolver().resolve(present.with_known_people(typed[:500], known), where)

    def audience_check(self, viewer: Viewer, job: Job) -> Callable[[Audience], Awaitable[None]]:
        """Discord's rules for `/remind to:`: the owner must be allowed to address the
        audience, and so must a moderator who sets it for them (nobody pings, through
        someone else's job, what they couldn't ping themselves)."""

        async def check(audience: Audience) -> None:
            where = Addressing(job.owner_id, job.guild_id, job.channel_id)
            await check_change(self._resolver(), audience, where, viewer.user_id)

        return check

    async def create(self, request: web.Request) -> web.StreamResponse:
        """A reminder in the viewer's DMs with Homar, through `/remind`'s own command."""
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        viewer = await self.viewer_of(signed)
        zone = await zone_for(self.runtime, viewer.user_id)
        try:
            when = _field(form, "when")
            if not when:
                raise UserError("Say when, e.g. `tomorrow 9am` or `in 20 minutes`.")
            instant = read_instant(when, now=self.now(), tz=zone.name)
            caller = await self.own_caller(viewer.user_id)
            answer = await remind(
                caller,
                instant,
                _field(form, "what"),
                repeat=_field(form, "repeat") or None,
                until=_field(form, "until") or None,
                follow_up=form.get("follow_up") == "on",
            )
        except (UserError, ScheduleError) as exc:
            return self.back("/jobs", _message(exc), "error")
        assert answer.cancel_job is not None and answer.card is not None
        job_id = answer.cancel_job
        # Its notes (a job it may duplicate, others in the same minute) come along.
        notes = [
            f"{name}: {value}"
            for name, value in answer.card.fields
            if name in ("Already scheduled", "Same minute")
        ]
        text = " ".join([f"Scheduled #{job_id} in your DMs with Homar.", *notes])
        return self.back(f"/jobs/{job_id}", present.plain_discord(text, zone.name))

    async def decide_approval(self, request: web.Request) -> web.StreamResponse:
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        raw = _field(form, "approval_id")
        if not raw.isdigit():
            raise web.HTTPBadRequest(text="Which approval? (approval_id missing)")
        approval_id = int(raw)
        row = await self.approval_store.get(approval_id)
        if row is None:
            raise web.HTTPNotFound(text="That approval no longer exists.")
        if row.user_id != signed.user_id:
            raise web.HTTPForbidden(text="Only the person who asked can approve or deny this.")
        approved = _field(form, "verdict") == "approve"
        outcome = await self.decide(approval_id, signed.user_id, approved)
        if not outcome.ok:
            return self.back("/jobs", outcome.message, "error")
        verdict = "Approved" if approved else "Denied"
        return self.back("/jobs", f"{verdict}; Homar carries on in the thread.")

    async def set_zone(self, request: web.Request) -> web.StreamResponse:
        """`/timezone set`'s own command; its offer to move jobs is on the page (below)."""
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        caller = await self.own_caller(signed.user_id)
        try:
            answer = await timezone.set_zone(caller, _field(form, "zone"))
        except UserError as exc:
            return self.back("/jobs", _message(exc), "error")
        return self.back("/jobs", present.plain_discord(answer.text, caller.zone.name))

    async def move_zone(self, request: web.Request) -> web.StreamResponse:
        """Accept the zone-move offer: the viewer's jobs in `from` follow to their zone at
        the same local times (`/timezone set`'s Move button)."""
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        caller = await self.own_caller(signed.user_id)
        try:
            old = timezone.zone_named(_field(form, "from"))
            answer = await timezone.move_jobs(caller, signed.user_id, old, caller.zone.name)
        except UserError as exc:
            return self.back("/jobs", _message(exc), "error")
        return self.back("/jobs", answer.text)

    async def own_caller(self, user_id: int) -> Caller:
        """The shared commands' caller for the viewer's own settings and jobs."""
        channel_id = await self.view.dm_channel(user_id)
        return Caller(
            runtime=self.runtime,
            actor=Actor(user_id),
            target=Target(user_id, channel_id),
            zone=await zone_for(self.runtime, user_id),
        )

    async def export(self, request: web.Request) -> web.Response:
        """The viewer's own open jobs as a file (the same format as `homar jobs export`)."""
        signed = await self.signed_in(request)
        rows = await job_files.export_rows(self.runtime.engine, owner_id=signed.user_id)
        fmt = request.match_info["fmt"]
        body = job_files.to_json(rows) if fmt == "json" else job_files.to_ics(rows)
        kind = "application/json" if fmt == "json" else "text/calendar"
        return web.Response(
            text=body,
            content_type=kind,
            charset="utf-8",
            headers={"Content-Disposition": f'attachment; filename="homar-jobs.{fmt}"'},
        )

    async def import_file(self, request: web.Request) -> web.StreamResponse:
        """Jobs from a file, each checked like a new one (`Engine.restore` via job_files).

        Whatever the file says about owners and places, every job becomes the viewer's, in
        their DMs with Homar, pinging only them: a file can't act for anyone else.
        """
        signed = await self.signed_in(request)
        form = await self.guard.check_write(request, signed)
        upload = form.get("file")
        if not isinstance(upload, web.FileField):
            return self.back("/jobs", "Choose a .json or .ics file to import.", "error")
        text = upload.file.read(MAX_IMPORT_BYTES + 1).decode("utf-8", errors="replace")
        if len(text) > MAX_IMPORT_BYTES:
            return self.back("/jobs", "That file is too big to import here.", "error")
        user = signed.user_id
        try:
            dm = await self.view.dm_channel(user)
            place = job_files.Place(user, dm)
            is_ics = (upload.filename or "").lower().endswith(".ics") or text.lstrip().startswith(
                "BEGIN:VCALENDAR"
            )
            rows = job_files.from_ics(text, place) if is_ics else job_files.from_json(text)
        except UserError as exc:
            return self.back("/jobs", _message(exc), "error")
        mine = [
            {
                **row,
                "owner_id": user,
                "channel_id": dm,
                "guild_id": None,
                "parent_channel_id": None,
                "audience": None,
                "meta": None,
                "created_by": "user",
            }
            for row in rows
        ]
        made, problems = await job_files.import_rows(self.runtime.engine, mine)
        text = f"Imported {len(made)} job(s) into your DMs with Homar."
        if problems:
            text += " Skipped " + "; ".join(problems[:5])
        return self.back("/jobs", text, "error" if problems and not made else "ok")

    async def preview(self, request: web.Request) -> web.Response:
        """The live preview under the time fields: the slash commands' own preview lines
        (`bot/slash/preview.py`), plus the next runs when the whole schedule is valid."""
        signed = await self.signed_in(request)
        if not await self.guard.writes.allow(f"preview:{signed.user_id}"):
            return web.json_response({"ok": False, "text": "Slow down a little."}, status=429)
        tz = await self.tz_of(signed.user_id)
        now = self.now()
        when = request.query.get("when", "").strip()[:200]
        repeat = request.query.get("repeat", "").strip()[:200]
        until = request.query.get("until", "").strip()[:200]
        if not when:
            return web.json_response({"ok": False, "text": ""})
        engine = self.runtime.engine
        lines = [when_preview(when, now=now, tz=tz, engine=engine)]
        if repeat:
            lines.append(repeat_preview(repeat, when=when, now=now, tz=tz, engine=engine))
        if until:
            lines.append(until_preview(until, now=now, tz=tz))
        try:
            chosen = plan(
                read_instant(when, now=now, tz=tz),
                now=now,
                repeat=repeat or None,
                until=until or None,
            )
            engine.check_schedule(chosen.schedule, now)
        except (UserError, ScheduleError):
            return web.json_response({"ok": False, "text": "\n".join(lines)})
        runs = next_runs(chosen.schedule, now, present.RUNS_SHOWN)
        return web.json_response(
            {
                "ok": True,
                "text": "\n".join([*lines, chosen.schedule.describe()]),
                "runs": [present.local(at, chosen.schedule.tz) for at in runs],
            }
        )

    async def events(self, request: web.Request) -> web.StreamResponse:
        signed = await self.signed_in(request)
        return await live.stream(request, self, signed)


def _field(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _message(exc: Exception) -> str:
    text = getattr(exc, "message", None)
    return str(text) if text else str(exc)
