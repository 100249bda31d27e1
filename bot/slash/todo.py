"""/todo: the thread's to-do list (list, add, done, remove), answered privately, no AI."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.commands import todo
from bot.commands.cards import short
from bot.slash.context import answer, caller_of, runtime_of
from tools.agent.todo import MAX_DESCRIPTION, TodoList


def todos_of(interaction: discord.Interaction[Any]) -> TodoList:
    runtime = runtime_of(interaction)
    return TodoList(runtime.db, runtime.clock.now)


def here(interaction: discord.Interaction[Any]) -> int:
    """The list lives in the thread (or channel, or DM) the command was typed in."""
    return interaction.channel_id or interaction.user.id


async def open_todos(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    items = await todos_of(interaction).pending(here(interaction))
    typed = current.strip().lstrip("#").casefold()
    return [
        app_commands.Choice(name=short(f"#{i.id} {i.description}", 100), value=i.id)
        for i in items
        if not typed or str(i.id).startswith(typed) or typed in i.description.casefold()
    ][:25]


class TodoGroup(app_commands.Group):
    """This thread's to-do list."""

    def __init__(self) -> None:
        super().__init__(name="todo", description="This thread's to-do list (no AI).")

    @app_commands.command(name="list", description="Show this thread's to-do list (private).")
    async def list_(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, await todo.list_todos(await caller_of(interaction)))

    @app_commands.command(name="add", description="Add a to-do to this thread's list.")
    @app_commands.describe(description="What needs doing")
    async def add(
        self,
        interaction: discord.Interaction[Any],
        description: app_commands.Range[str, 1, MAX_DESCRIPTION],
    ) -> None:
        await answer(interaction, await todo.add(await caller_of(interaction), description))

    @app_commands.command(name="done", description="Mark a to-do done.")
    @app_commands.describe(id="The to-do's number")
    @app_commands.autocomplete(id=open_todos)
    async def done(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await todo.done(await caller_of(interaction), id))

    @app_commands.command(name="remove", description="Remove a to-do without doing it.")
    @app_commands.describe(id="The to-do's number")
    @app_commands.autocomplete(id=open_todos)
    async def remove(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await todo.remove(await caller_of(interaction), id))
