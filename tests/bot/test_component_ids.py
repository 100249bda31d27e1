"""Custom ids already stored on messages in Discord keep matching their components.

Buttons posted before a release are clicked after it: each row of `bot.components.ids`
must keep producing (and matching) exactly the strings earlier releases posted.
"""

from __future__ import annotations

import pytest

from bot.components import BUTTONS, FORMS, ids
from bot.components.approvals import DecisionButton
from bot.components.jobs import CancelJobButton, JobsPageButton
from bot.components.reminders import DoneButton, JoinButton, SnoozeButton
from bot.components.templates import SaveTemplateButton
from bot.components.zones import FollowZoneButton

# (a custom id as posted by earlier releases, the component that must answer it)
POSTED = [
    ("homar:cancel:42", CancelJobButton),
    ("homar:jobs:page:mine:0", JobsPageButton),
    ("homar:jobs:page:server:12", JobsPageButton),
    ("homar:done:7:19", DoneButton),
    ("homar:snooze:7:19:10m", SnoozeButton),
    ("homar:snooze:7:19:tomorrow", SnoozeButton),
    ("homar:snooze:7:19:custom", SnoozeButton),
    ("homar:join:7", JoinButton),
    ("homar:leave:7", JoinButton),
    ("homar:approve:3", DecisionButton),
    ("homar:deny:3", DecisionButton),
    ("homar:tplsave:7", SaveTemplateButton),
    ("homar:tzfollow:5:Europe/Berlin:America/New_York", FollowZoneButton),
]


@pytest.mark.parametrize(("custom_id", "component"), POSTED)
def test_a_posted_custom_id_is_answered_by_its_component_only(
    custom_id: str, component: type
) -> None:
    answering = [b for b in BUTTONS if b.__discord_ui_compiled_template__.fullmatch(custom_id)]
    assert answering == [component]


def test_components_post_the_same_strings_as_before() -> None:
    assert CancelJobButton(42).custom_id == "homar:cancel:42"
    assert JobsPageButton("thread", 3).custom_id == "homar:jobs:page:thread:3"
    assert DoneButton(7, 19).custom_id == "homar:done:7:19"
    assert SnoozeButton(7, 19, "1h").custom_id == "homar:snooze:7:19:1h"
    assert JoinButton(7, "leave").custom_id == "homar:leave:7"
    assert DecisionButton(3, False).custom_id == "homar:deny:3"
    assert SaveTemplateButton(7).custom_id == "homar:tplsave:7"
    zone = FollowZoneButton(5, "Europe/Berlin", "UTC")
    assert zone.custom_id == "homar:tzfollow:5:Europe/Berlin:UTC"


def test_forms_submitted_before_a_restart_still_route() -> None:
    routed = {row.form: row for row, _ in FORMS}
    assert ids.SNOOZE_FORM.match("homar:snoozeat:7:19") is not None
    assert ids.TEMPLATE_FORM.match("homar:tplname:7") is not None
    assert set(routed) == {ids.SNOOZE_FORM.form, ids.TEMPLATE_FORM.form}
    # Near misses belong to nobody: another form's id, a non-number, trailing text.
    assert ids.SNOOZE_FORM.match("homar:tplname:7") is None
    assert ids.SNOOZE_FORM.match("homar:snoozeat:7:x") is None
    assert ids.TEMPLATE_FORM.match("homar:tplname:7:extra") is None
