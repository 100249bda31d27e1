"""What pyproject.toml declares matches what the code imports and what the locks pin."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.bot.test_cli import homar

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def lock(name: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if "==" in line:
            dist, version = line.split("==")
            pins[canonicalize_name(dist)] = version.strip()
    return pins


def imported_top_levels() -> set[str]:
    names: set[str] = set()
    for package in ("bot", "tools", "storage"):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    ours = {"bot", "tools", "storage", "tests", "__future__"}
    return {n for n in names if n not in ours and n not in sys.stdlib_module_names}


def test_every_imported_package_is_declared() -> None:
    declared = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    providers = md.packages_distributions()
    missing = {
        module: providers.get(module)
        for module in imported_top_levels()
        if not {canonicalize_name(d) for d in providers.get(module, [])} & declared
    }
    assert not missing, f"imported but not declared in [project] dependencies: {missing}"


def test_runtime_lock_satisfies_the_declared_ranges() -> None:
    runtime = lock("requirements.lock")
    for spec in PROJECT["dependencies"]:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in runtime, f"{req.name} is declared but not pinned in requirements.lock"
        assert req.specifier.contains(runtime[name], prereleases=True), (spec, runtime[name])
    # The marker survives in the lock, so Python 3.13+ installs what discord.py needs.
    assert re.search(
        r'^audioop-lts==[\d.]+ ; python_version >= "3.13"$',
        (ROOT / "requirements.lock").read_text(),
        re.M,
    )


def test_dev_lock_adds_the_dev_tools_on_top_of_the_runtime_lock() -> None:
    runtime, dev = lock("requirements.lock"), lock("requirements-dev.lock")
    assert "-r requirements.lock" in (ROOT / "requirements-dev.lock").read_text().splitlines()
    assert not set(runtime) & set(dev), "a package pinned in both locks"
    for spec in PROJECT["optional-dependencies"]["dev"]:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in dev, f"{req.name} is a dev dependency but not in requirements-dev.lock"
        assert req.specifier.contains(dev[name], prereleases=True), (spec, dev[name])
    # The test tools never reach the runtime lock (the container image installs only it).
    assert not {"pytest", "ruff", "mypy"} & set(runtime)


def test_licence_file_matches_the_declared_licence() -> None:
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_version_matches_the_project() -> None:
    result = homar("--version")
    assert result.returncode == 0
    assert PROJECT["version"] in result.stdout
