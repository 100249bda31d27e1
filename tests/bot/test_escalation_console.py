"""The console surface prints an escalation as the DM it would be, and never re-feeds it."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import ManualClock
from bot.settings import load_settings
from bot.wiring import console
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

START = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


async def test_console_prints_the_escalation_once(tmp_path: Path) -> None:
    settings = load_settings(
        _env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path}/c.db", default_timezone="UTC"
    )
    clock = ManualClock(START)
    out = io.StringIO()
    runtime = console(settings, out, clock=clock).runtime
    await runtime.open()
    try:
        transport = runtime.surface.transport
        dispatcher = runtime.dispatcher
        engine = runtime.engine
        job = await engine.create(
            target=Target(1, 1),
            command="submit the report",
            schedule=Schedule(Once(START + timedelta(minutes=10))),
            kind="reminder",
            follow_up={"interval_s": 1800, "max": 1, "escalate": "dm"},
        )
        await clock.advance(600)
        await engine.record(
            [
                engine.delivered(c, engine.decide(c), message_id=None)
                for c in await engine.claim_due(limit=5, lease=timedelta(minutes=1))
            ]
        )
        await clock.advance(1800)
        await engine.record(
            [
                engine.delivered(c, engine.decide(c), message_id=None)
                for c in await engine.claim_due(limit=5, lease=timedelta(minutes=1))
            ]
        )
        await clock.advance(1800)
        (claim,) = await engine.claim_due(limit=5, lease=timedelta(minutes=1))
        assert claim.run.kind == "escalate"
        delivered = await transport.deliver(dispatcher._delivery(claim, engine.decide(claim)))
        assert delivered.route == "console"
        assert "homar (DM)> ⏰ You haven't answered a reminder: “submit the report”" in (
            out.getvalue()
        )
        assert "[DELAYED_COMMAND]" not in out.getvalue()
        await engine.record([engine.delivered(claim, engine.decide(claim), message_id=None)])
        assert claim.run.nonce not in await runtime.store.unreplied_nonces(clock.now())
        assert (await engine.get(job.id)).status == "completed"
    finally:
        await runtime.db.close()
