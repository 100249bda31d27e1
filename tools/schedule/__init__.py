"""Schedule math: what a job's schedule is, when it runs next, and how to say it.

- `zones`: IANA zones (`zone`, `localize`), zone names people type, a zone inside a phrase
- `cities`: the generated city → zone table behind `zones`
- `cron`: 5-field cron expressions and seed 003's `daily@HH:MM` forms
- `rrule`: RFC 5545 rules with EXDATE/EXRULE exceptions
- `specs`: `Once`, `Every`, the `Spec` union and its JSON
- `schedule`: `Schedule` (a spec in a zone with end conditions) and its next runs
- `describe`: schedules in plain words, and `timestamp`, the one `<t:…>` formatter

A `Schedule` is plain data; the names below are the package's public API.
"""

from tools.errors import ScheduleError
from tools.schedule.cron import Cron, parse_at_form
from tools.schedule.describe import MONTH_NAMES, stamp, timestamp
from tools.schedule.rrule import Exclusion, RRule
from tools.schedule.schedule import Schedule
from tools.schedule.specs import Every, Once, Spec, spec_from_json, spec_to_json
from tools.schedule.zones import localize, zone

__all__ = [
    "MONTH_NAMES",
    "Cron",
    "Every",
    "Exclusion",
    "Once",
    "RRule",
    "Schedule",
    "ScheduleError",
    "Spec",
    "localize",
    "parse_at_form",
    "spec_from_json",
    "spec_to_json",
    "stamp",
    "timestamp",
    "zone",
]
