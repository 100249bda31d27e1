"""A Homar plugin for tests: `HOMAR_PLUGINS=tests.actions.sample_plugin`."""

from __future__ import annotations

from pydantic_ai import FunctionToolset

WATERED: list[str] = []


def water_plants(room: str) -> str:
    """Water the plants in a room."""
    WATERED.append(room)
    return f"Watered the plants in the {room}."


toolset = FunctionToolset([water_plants])
