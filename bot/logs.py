"""Log records that carry job, run and thread ids, as text or (LOG_FORMAT=json) JSON lines."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

IDS = ("job_id", "run_id", "thread_id")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _ids(record: logging.LogRecord) -> dict[str, object]:
    return {key: getattr(record, key) for key in IDS if getattr(record, key, None) is not None}


class TextFormatter(logging.Formatter):
    """The usual line, with ` job=… run=… thread=…` appended when the record has them."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = _ids(record)
        if not ids:
            return line
        tail = " ".join(f"{key.removesuffix('_id')}={value}" for key, value in ids.items())
        first, nl, rest = line.partition("\n")  # keep a traceback below the ids
        return f"{first} [{tail}]{nl}{rest}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the ids, and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_ids(record),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup(level: str = "INFO", fmt: str = "text") -> None:
    """Configure the root logger; `fmt` "json" (the LOG_FORMAT setting) writes JSON lines."""
    fmt = fmt.lower()
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
