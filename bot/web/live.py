"""Live updates: a per-user server-sent event stream that says "changed" when anything the
person can see changes (a job fired, was created elsewhere, edited, an approval arrived).

It polls the database briefly (WEB_LIVE_POLL seconds) instead of listening to this
process's dispatcher, so on PostgreSQL with several processes any one can serve the stream
and still see jobs another process fired. The page then re-fetches itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import Counter
from typing import TYPE_CHECKING

from aiohttp import web

from storage.web_sessions import SignedIn

if TYPE_CHECKING:
    from bot.web.access import Viewer
    from bot.web.dashboard import Dashboard

MAX_STREAMS_PER_USER = 6
KEEPALIVE_EVERY = 15.0  # seconds: proxies drop silent connections

_open: Counter[int] = Counter()


async def fingerprint(dash: Dashboard, viewer: Viewer) -> str:
    """A digest of everything the viewer's pages show that can change on its own."""
    digest = hashlib.sha256()
    for job in sorted(await dash.visible_jobs(viewer, closed=True), key=lambda j: j.id):
        digest.update(
            f"{job.id}|{job.status}|{job.updated_at}|{job.next_run_at}|{job.run_count}|"
            f"{job.command}|{job.meta}\n".encode()
        )
    for row in await dash.approval_store.pending():
        if row.user_id == viewer.user_id:
            digest.update(f"a{row.id}\n".encode())
    return digest.hexdigest()


async def stream(request: web.Request, dash: Dashboard, signed: SignedIn) -> web.StreamResponse:
    user = signed.user_id
    if _open[user] >= MAX_STREAMS_PER_USER:
        raise web.HTTPTooManyRequests(text="Too many open dashboard tabs.")
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        }
    )
    await response.prepare(request)
    _open[user] += 1
    poll = dash.settings.web_live_poll
    # The page says what it showed (its own fingerprint), so a change between rendering
    # the page and opening this stream still counts.
    since = request.query.get("since", "")
    last: str | None = since if len(since) == 64 else None
    quiet = 0.0
    try:
        await response.write(b"retry: 3000\n\n")
        while True:
            # Re-checked every time: signing out (everywhere) ends the stream.
            current = await dash.guard.session(request, dash.now())
            if current is None:
                await response.write(b"event: signed-out\ndata: {}\n\n")
                break
            viewer = await dash.viewer_of(current)
            mark = await fingerprint(dash, viewer)
            if last is not None and mark != last:
                await response.write(b"event: changed\ndata: {}\n\n")
                quiet = 0.0
            elif quiet >= KEEPALIVE_EVERY:
                await response.write(b": keep-alive\n\n")
                quiet = 0.0
            last = mark
            # Wait one poll, or less if the server is stopping (so shutdown isn't held up).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(dash.closing.wait(), poll)
            if dash.closing.is_set():
                break
            quiet += poll
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write_eof()
    except ConnectionResetError:  # the tab was closed
        pass
    finally:
        _open[user] -= 1
    return response
