"""Structured logs: one JSON object per line on stderr, for people and log shippers.

Every record carries `time`, `level`, `logger` and `message`, plus the fields passed
as `extra` (`room`, `role`, `seq`, ...), so `jq 'select(.room == "r-7f3a")'` follows
one fight. The standard library's logging does the work; this is only its formatter.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has: anything else on a record came from `extra`.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


def configure(level: str = "info") -> None:
    """Send the root logger's records to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("websockets").setLevel(logging.WARNING)


def brief(error: BaseException) -> str:
    """An error as one short line for a log or a refusal: its type and the first line
    of its message."""
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
