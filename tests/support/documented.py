"""The codes `docs/protocol.md` documents, read from its tables ("Errors and close
codes"): what a client may be sent, so a test can hold the server to the page rather
than to a list of its own.

A code added to the page (a new close code, say) is accepted by these tests from the
moment it is documented, and not before.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

_ROW_CODE = re.compile(r"^\|\s*`([a-z][a-z0-9_]*)`\s*\|", re.MULTILINE)
_ROW_NUMBER = re.compile(r"^\|\s*(\d{4})\s*\|\s*([^|]*?)\s*\|", re.MULTILINE)


def section(title: str) -> str:
    """The text under the heading `title` (any level), up to the next heading."""
    text = DOC.read_text()
    found = re.search(rf"^#+ {re.escape(title)}\s*$", text, re.MULTILINE)
    assert found is not None, f"docs/protocol.md has no section {title!r}"
    rest = text[found.end() :]
    following = re.search(r"^#+ ", rest, re.MULTILINE)
    return rest if following is None else rest[: following.start()]


@cache
def error_codes() -> frozenset[str]:
    """The codes of the "Error codes" table (`error` frames and close reasons)."""
    return frozenset(_ROW_CODE.findall(section("Error codes")))


@cache
def refusal_codes() -> frozenset[str]:
    """The codes of the "Refusal codes" table (`refused` frames)."""
    return frozenset(_ROW_CODE.findall(section("Refusal codes")))


@cache
def close_codes() -> dict[int, str]:
    """The "Close codes" table: each websocket close code and what the page says of it."""
    return {int(code): meaning for code, meaning in _ROW_NUMBER.findall(section("Close codes"))}
