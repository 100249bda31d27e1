"""`/readyz` apart from `/healthz`, and `homar healthcheck` (the container's health check)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import aiohttp

from tests.bot.harness import World, running_bot
from tests.reliability.test_operations import free_port

ROOT = Path(__file__).resolve().parents[2]


async def healthcheck(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run `homar healthcheck` without blocking the loop that serves /healthz."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "HOMAR_"))}
    base.update({"PYTHONPATH": str(ROOT), **(env or {})})
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "healthcheck",
        *args,
        env=base,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_readyz_and_healthcheck_follow_the_bot(world: World, tmp_path: Path) -> None:
    port = free_port()
    async with running_bot(world, health_port=port) as homar, aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}/readyz") as resp:
            assert resp.status == 200
            assert await resp.json() == {
                "ready": True,
                "db": True,
                "discord": True,
                "stopping": False,
            }
        code, out, _ = await healthcheck(env={"HEALTH_PORT": str(port)})
        assert code == 0 and out.startswith("ok: db=True discord=True")

        homar.health.stopping = True  # what a graceful shutdown sets first
        async with http.get(f"http://127.0.0.1:{port}/readyz") as resp:
            assert resp.status == 503 and (await resp.json())["stopping"] is True
        async with http.get(f"http://127.0.0.1:{port}/healthz") as resp:
            assert resp.status == 200  # still alive while it finishes its work
        code, _, err = await healthcheck("--url", f"http://127.0.0.1:{port}/readyz")
        assert code == 1 and "answered 503" in err
        homar.health.stopping = False
    # Nothing listening any more: unhealthy, one line, no traceback.
    code, _, err = await healthcheck("--url", f"http://127.0.0.1:{port}/healthz")
    assert code == 1 and "did not answer" in err and "Traceback" not in err


async def test_healthcheck_without_a_port_says_so(tmp_path: Path) -> None:
    code, _, err = await healthcheck(env={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/h.db"})
    assert code == 2 and "HEALTH_PORT is not set" in err
