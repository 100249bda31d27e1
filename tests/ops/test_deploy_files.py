"""The files people deploy Homar with: the systemd unit, the Dockerfile and compose.yaml.

Containers cannot be built on the test machines, so these check what can be checked
without an engine: systemd's own verifier on the unit, hadolint on the Dockerfile, and
that what the container and compose files run is a command Homar actually has, with
settings Homar accepts.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]


def _unit_for_this_checkout(tmp_path: Path) -> Path:
    """The shipped unit with /opt/homar pointed at this checkout (verify checks ExecStart)."""
    unit = (ROOT / "contrib" / "homar.service").read_text()
    exe = Path(sys.executable).with_name("homar")
    assert exe.exists(), "the console script is installed next to the interpreter"
    unit = unit.replace("/opt/homar/.venv/bin/homar", str(exe)).replace("/opt/homar", str(ROOT))
    path = tmp_path / "homar.service"
    path.write_text(unit)
    return path


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not here")
def test_systemd_unit_verifies_cleanly(tmp_path: Path) -> None:
    path = _unit_for_this_checkout(tmp_path)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    # verify exits 0 even for unknown keys; it prints a line per problem, so none may appear.
    problems = [line for line in result.stderr.splitlines() if path.name in line]
    assert result.returncode == 0 and not problems, result.stderr


def test_systemd_unit_is_hardened_and_restarts() -> None:
    unit = (ROOT / "contrib" / "homar.service").read_text()
    service = dict(
        line.split("=", 1) for line in unit.splitlines() if re.match(r"^[A-Z]\w+=", line)
    )
    assert service["User"] == "homar" and service["Restart"] == "on-failure"
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == "/var/lib/homar"
    # The database the unit points at lives in the only writable folder.
    url = re.search(r"DATABASE_URL=(\S+)", unit)
    assert url and "/var/lib/homar/" in url.group(1)
    load_settings(database_url=url.group(1))  # and Homar accepts it
    # SIGTERM first, and longer than the default shutdown grace before a SIGKILL.
    assert service["KillSignal"] == "SIGTERM" and int(service["TimeoutStopSec"]) > 20


def _hadolint() -> str | None:
    found = shutil.which("hadolint") or Path(sys.executable).with_name("hadolint")
    return str(found) if found and Path(found).exists() else None


@pytest.mark.skipif(_hadolint() is None, reason="hadolint (dev dependency) not installed")
def test_dockerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [str(_hadolint()), "--no-color", str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_dockerfile_runs_homar_as_non_root_from_the_lock() -> None:
    steps = _instructions()
    words = [w for w, _ in steps]
    assert steps[0][0] == "FROM" and "slim" in steps[0][1]
    runs = " ".join(rest for w, rest in steps if w == "RUN")
    assert "-r requirements.lock" in runs
    user = [rest for w, rest in steps if w == "USER"]
    assert user and user[-1] not in ("root", "0")
    # Everything after the last USER runs as that user, including the entrypoint.
    assert words.index("USER") < words.index("ENTRYPOINT")
    assert dict(steps)["ENTRYPOINT"] == '["homar"]' and dict(steps)["CMD"] == '["run"]'
    health = dict(steps)["HEALTHCHECK"]
    assert '["homar", "healthcheck"]' in health
    assert any(w == "VOLUME" and "/data" in rest for w, rest in steps)
    env = " ".join(rest for w, rest in steps if w == "ENV")
    url = re.search(r"DATABASE_URL=(\S+)", env)
    assert url and url.group(1).startswith("sqlite+aiosqlite:////data/")
    load_settings(database_url=url.group(1), health_port=8080)


def test_compose_services_are_valid_homar_deployments() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    bots = {name: svc for name, svc in services.items() if name != "postgres"}
    assert "homar" in bots and "profiles" not in bots["homar"]  # the default: one bot
    shards = {name: svc for name, svc in bots.items() if "SHARD_IDS" in svc.get("environment", {})}
    assert len(shards) >= 2
    counts = {int(s["environment"]["SHARD_COUNT"]) for s in shards.values()}
    ids = sorted(int(s["environment"]["SHARD_IDS"]) for s in shards.values())
    assert len(counts) == 1 and ids == list(range(counts.pop())), "every shard, once"
    for name, svc in shards.items():
        env = svc["environment"]
        url = env["DATABASE_URL"].replace("${POSTGRES_PASSWORD:-homar}", "homar")
        assert url.startswith("postgresql+asyncpg://"), name
        settings = load_settings(
            database_url=url, shard_count=env["SHARD_COUNT"], shard_ids=env["SHARD_IDS"]
        )
        assert settings.shard_ids == [int(env["SHARD_IDS"])]
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "scale" in svc["profiles"]
    for svc in bots.values():
        volumes = svc.get("volumes", [])
        for volume in volumes:
            assert volume.split(":")[0] in compose["volumes"]
