"""/todo list|add|done|remove: the thread's to-do list, no model involved."""

from __future__ import annotations

from bot.commands import Answer, Caller
from bot.commands.cards import short
from storage.todos import TodoItem
from tools.agent.todo import TodoList, todo_line
from tools.errors import NotAllowed


def todos_of(caller: Caller) -> TodoList:
    return TodoList(caller.runtime.db, caller.runtime.clock.now)


def check_may_change(caller: Caller, item: TodoItem) -> None:
    """Whoever added a to-do may close it; so may moderators (Manage Messages), like /jobs."""
    actor = caller.actor
    if item.created_by in (None, actor.user_id) or actor.manage_messages:
        return
    raise NotAllowed(
        f"To-do #{item.id} was added by someone else; ask them, or a moderator, to close it."
    )


async def list_todos(caller: Caller) -> Answer:
    items = await todos_of(caller).recent(caller.channel_id)
    if not items:
        return Answer("The to-do list here is empty. Add one with `/todo add`.")
    return Answer("**To-do list**\n" + "\n".join(short(todo_line(i), 180) for i in items))


async def add(caller: Caller, description: str) -> Answer:
    item = await todos_of(caller).add(caller.channel_id, description, caller.user_id)
    return Answer(f"Added to-do #{item.id}: {short(item.description, 300)}")


async def done(caller: Caller, todo_id: int) -> Answer:
    todos = todos_of(caller)
    check_may_change(caller, await todos.get(caller.channel_id, todo_id))
    item = await todos.complete(caller.channel_id, todo_id)
    return Answer(f"✅ Done: #{item.id} {short(item.description, 300)}")


async def remove(caller: Caller, todo_id: int) -> Answer:
    todos = todos_of(caller)
    check_may_change(caller, await todos.get(caller.channel_id, todo_id))
    item = await todos.remove(caller.channel_id, todo_id)
    return Answer(f"Removed to-do #{item.id}: {short(item.description, 300)}")
