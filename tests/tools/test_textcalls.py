"""JSON-text tool calls and seed 000's delimited tags."""

from __future__ import annotations

import pytest

from tools.agent.textcalls import parse_json_call, parse_tags

NAMES = {"schedule_reminder", "send_delayed_message"}
A = '{"reminder_time": "in 2 hours", "message": "x"}'


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "schedule_reminder", "arguments": ' + A + "}",
        '{"tool": "schedule_reminder", "parameters": ' + A + "}",
        'Sure!\n```json\n{"name": "schedule_reminder", "arguments": ' + A + "}\n```",
        '```\n{"name": "schedule_reminder", "args": ' + A + "}```",
        '{"function": {"name": "schedule_reminder", "arguments": '
        '"{\\"reminder_time\\": \\"in 2 hours\\", \\"message\\": \\"x\\"}"}}',
        'I will do it: {"name": "schedule_reminder", '
        '"reminder_time": "in 2 hours", "message": "x"}',
    ],
)
def test_json_call_forms(text: str) -> None:
    call = parse_json_call(text, NAMES)
    assert call is not None
    assert call.name == "schedule_reminder"
    assert call.args == {"reminder_time": "in 2 hours", "message": "x"}


def test_json_call_keeps_prose_before() -> None:
    call = parse_json_call('Okay!\n{"name": "send_delayed_message", "arguments": {}}', NAMES)
    assert call is not None and call.before == "Okay!"


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "rm_rf", "arguments": {}}',
        "no json here",
        '{"name": "schedule_reminder", "arguments": "not json"}',
        "{broken json",
        '{"name": "schedule_reminder", "arguments": [1, 2]}',
        "",
    ],
)
def test_json_call_rejects(text: str) -> None:
    assert parse_json_call(text, NAMES) is None


def test_cron_tag_single_and_double_quotes() -> None:
    r = parse_tags("Okay, every weekday at 8! [CRON: '0 8 * * 1-5' / MSG: 'stretch']")
    assert (r.kind, r.cron, r.message, r.friendly) == (
        "cron",
        "0 8 * * 1-5",
        "stretch",
        "Okay, every weekday at 8!",
    )
    r = parse_tags('Done. [CRON: "30 7 * * *" / MSG: "it\'s time"]')
    assert (r.kind, r.cron, r.message) == ("cron", "30 7 * * *", "it's time")


def test_execute_now_tag() -> None:
    r = parse_tags("Right away! [EXECUTE_NOW: 'drink water']")
    assert (r.kind, r.message, r.friendly) == ("now", "drink water", "Right away!")
    assert parse_tags('[EXECUTE_NOW: "x"]').message == "x"


def test_two_tags_conflict() -> None:
    r = parse_tags("Hmm [CRON: '0 8 * * *' / MSG: 'a'] or [EXECUTE_NOW: 'b']")
    assert r.kind == "conflict"


def test_question_without_tag_is_clarifier() -> None:
    assert parse_tags("When should I remind you about the dentist?").kind == "clarifier"
    assert parse_tags("All done.").kind == "text"
