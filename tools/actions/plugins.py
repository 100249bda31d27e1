"""Python plugins from `HOMAR_PLUGINS=package.module,…`: each module exposes a `toolset`.

A plugin is any importable module with a module-level `toolset` (a pydantic-ai toolset,
e.g. `FunctionToolset([...])`). Loading fails at start with a message naming the module,
so a typo never silently leaves the agent without its tools.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pydantic_ai.toolsets import AbstractToolset, FunctionToolset


class PluginError(Exception):
    """A plugin module can't be used; the message names it and what to fix."""


@dataclass(frozen=True)
class Plugin:
    module: str
    toolset: AbstractToolset[Any]

    def tools(self) -> dict[str, str]:
        """Tool name → description, where the toolset can tell without a run."""
        if isinstance(self.toolset, FunctionToolset):
            return {n: t.description or "" for n, t in self.toolset.tools.items()}
        return {}


def plugin_names(spec: str | None) -> list[str]:
    return [name.strip() for name in (spec or "").split(",") if name.strip()]


def load_plugin(module: str) -> Plugin:
    try:
        mod = importlib.import_module(module)
    except Exception as exc:
        raise PluginError(
            f"Plugin {module!r} (HOMAR_PLUGINS) failed to import: {type(exc).__name__}: {exc}. "
            "Check the module path and that it is installed."
        ) from exc
    toolset = getattr(mod, "toolset", None)
    if not isinstance(toolset, AbstractToolset):
        raise PluginError(
            f"Plugin {module!r} (HOMAR_PLUGINS) has no `toolset`: define a module-level "
            "`toolset = FunctionToolset([...])` (any pydantic-ai toolset)."
        )
    return Plugin(module, toolset)


def load_plugins(spec: str | None) -> list[Plugin]:
    return [load_plugin(name) for name in plugin_names(spec)]
