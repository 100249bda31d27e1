"""/todo: the thread's to-do list (list, add, done, remove), answered privately, no AI."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import actor_of, reply_private, runtime_of
from bot.slash.render import short
from storage.todos import TodoItem
from tools.errors import NotAllowed
from tools.todo import MAX_DESCRIPTION, TodoList, todo_line


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


def check_may_change(interaction: discord.Interaction[Any], item: TodoItem) -> None:
    """Whoever added a to-do may close it; so may moderators (Manage Messages), like /jobs."""
    actor = actor_of(interaction)
    if item.created_by in (None, actor.user_id) or actor.manage_messages:
        return
    raise NotAllowed(
        f"To-do #{item.id} was added by someone else; ask them, or a moderator, to close it."
    )


class TodoGroup(app_commands.Group):
    """This thread's to-do list."""

    def __init__(self) -> None:
        super().__init__(name="todo", description="This thread's to-do list (no AI).")

    @app_commands.command(name="list", description="Show this thread's to-do list (private).")
    async def list_(self, interaction: discord.Interaction[Any]) -> None:
        items = await todos_of(interaction).recent(here(interaction))
        if not items:
            text = "The to-do list here is empty. Add one with `/todo add`."
        else:
            text = "**To-do list**\n" + "\n".join(short(todo_line(i), 180) for i in items)
        await reply_private(interaction, text)

    @app_commands.command(name="add", description="Add a to-do to this thread's list.")
    @app_commands.describe(description="What needs doing")
    async def add(
        self,
        interaction: discord.Interaction[Any],
        description: app_commands.Range[str, 1, MAX_DESCRIPTION],
    ) -> None:
        item = await todos_of(interaction).add(here(interaction), description, interaction.user.id)
        await reply_private(interaction, f"Added to-do #{item.id}: {short(item.description, 300)}")

    @app_commands.command(name="done", description="Mark a to-do done.")
    @app_commands.describe(id="The to-do's number")
    @app_commands.autocomplete(id=open_todos)
    async def done(self, interaction: discord.Interaction[Any], id: int) -> None:
        todos = todos_of(interaction)
        check_may_change(interaction, await todos.get(here(interaction), id))
        item = await todos.complete(here(interaction), id)
        await reply_private(interaction, f"✅ Done: #{item.id} {short(item.description, 300)}")

    @app_commands.command(name="remove", description="Remove a to-do without doing it.")
    @app_commands.describe(id="The to-do's number")
    @app_commands.autocomplete(id=open_todos)
    async def remove(self, interaction: discord.Interaction[Any], id: int) -> None:
        todos = todos_of(interaction)
        check_may_change(interaction, await todos.get(here(interaction), id))
        item = await todos.remove(here(interaction), id)
        await reply_private(
            interaction, f"Removed to-do #{item.id}: {short(item.description, 300)}"
        )
