"""/help: what Homar can do, with examples for chat and for each command."""

from __future__ import annotations

from bot.commands import Answer, Card

HELP = {
    "Talk to me": (
        "Mention me in a channel to start a thread, or DM me:\n"
        "• `@Homar remind me tomorrow at 9 to call mom`\n"
        '• `@Homar every weekday at 9 post "standup time" here`\n'
        "• `@Homar what's scheduled in this thread?`"
    ),
    "/remind": (
        "A reminder without the AI, answered instantly:\n"
        "• `/remind when: in 20 minutes what: take the cake out`\n"
        "• `/remind when: monday 9am what: standup repeat: every weekday`\n"
        "• `/remind when: tomorrow 18:00 what: water plants repeat: daily until: 5 times`"
    ),
    "/jobs": (
        "• `/jobs list` (add `scope: thread` or `scope: server`)\n"
        "• `/jobs cancel id: 42`, `/jobs pause id: 42`, `/jobs resume id: 42`\n"
        "• `/jobs edit id: 42 when: friday 10am`, `/jobs history id: 42`, "
        "`/jobs run-now id: 42`\n"
        "Start typing in `id` to pick from your jobs."
    ),
    "/timezone": (
        "• `/timezone set zone: Berlin` (also `Europe/Berlin`, `PST`, `UTC+2`)\n• `/timezone show`"
    ),
    "Reminders that make sure": (
        "Say “don't let me forget …” or use `/remind … follow_up: true`: I follow up until you "
        "answer or press **Done**; **Snooze** puts it off (10 min, 1 hour, tomorrow 9:00, or "
        "any time you type)."
    ),
    "/todo and /heartbeat": (
        "• `/todo add text: draft the newsletter`, `/todo list`, `/todo done id: 3`\n"
        "• `/heartbeat on every: 30 minutes` — when the thread is idle I work through its "
        "to-do list; an empty list costs nothing.\n• `/heartbeat status`, `/heartbeat off`"
    ),
}


def help_card(talk: str | None = None) -> Answer:
    """The help card; `talk` replaces the "Talk to me" part for a surface that isn't Discord."""
    fields = dict(HELP)
    if talk is not None:
        fields["Talk to me"] = talk
    return Answer(
        card=Card(
            "Homar — reminders and scheduled jobs",
            description="I remind you, run commands later, and repeat jobs on a schedule.",
            fields=tuple(fields.items()),
        )
    )
