"""Time phrases → instants and recurrences (deterministic, no network).

English is read by this package's grammar (`instant`, `recurrence`, `holidays`); when it
reads nothing, German, Spanish, French, Portuguese and Polish phrases go to dateparser
(`foreign`, loaded lazily) and come back as `Understood` instants that say how they
were read.

Public API: `parse_instant`, `parse_recurrence`, `parse_duration`, `split_when`, `When`,
`Recurrence` (the engine's `Schedule`), `explain_invalid_date`, `Understood`.
"""

from __future__ import annotations

from tools.schedule import Schedule as Recurrence

from .duration import parse_duration
from .foreign import Understood
from .instant import parse_instant
from .invalid import explain_invalid_date
from .recurrence import parse_recurrence
from .split import When, split_when

__all__ = [
    "Recurrence",
    "Understood",
    "When",
    "explain_invalid_date",
    "parse_duration",
    "parse_instant",
    "parse_recurrence",
    "split_when",
]
