"""Changes between two tables as RFC 6902 (JSON Patch) operations.

Only `add`, `remove` and `replace`, paths as RFC 6901 JSON Pointers. Maps are compared
key by key, recursively; a list or any other value that changed is replaced whole
(lists on the table are short, and a client never has to shift indexes). Both tables
are plain data (`protocol/table.py`); neither is changed.

Cost: unchanged parts are skipped by identity first (`is`), so a table built from
cached parts (`view.TableCache`, which diffs the parts every audience shares once per
batch, and each key's own only where they are other objects) costs only what changed.
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]


def pointer(*keys: str) -> str:
    """The JSON Pointer of `keys`: `pointer("combatants", "g/1")` is `/combatants/g~11`."""
    return "".join("/" + key.replace("~", "~0").replace("/", "~1") for key in keys)


def diff(before: dict[str, Any], after: dict[str, Any], path: str = "") -> list[Op]:
    """The operations that turn `before` into `after`."""
    ops: list[Op] = []
    _diff_maps(before, after, path, ops)
    return ops


def changes(before: Any, after: Any, path: str, ops: list[Op]) -> None:
    """Append to `ops` what turns the value `before` at `path` into `after`: maps key by
    key, anything else replaced whole when it differs."""
    if before is after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        _diff_maps(before, after, path, ops)
    elif before != after or type(before) is not type(after):
        ops.append({"op": "replace", "path": path, "value": after})


def _diff_maps(before: dict[str, Any], after: dict[str, Any], path: str, ops: list[Op]) -> None:
    for key in before:
        if key not in after:
            ops.append({"op": "remove", "path": path + pointer(key)})
    for key, new in after.items():
        old = before.get(key, _ABSENT)
        if old is new:  # unchanged, and the common case: no pointer made
            continue
        if old is _ABSENT:
            ops.append({"op": "add", "path": path + pointer(key), "value": new})
        elif isinstance(old, dict) and isinstance(new, dict):
            _diff_maps(old, new, path + pointer(key), ops)
        elif old != new or type(old) is not type(new):
            ops.append({"op": "replace", "path": path + pointer(key), "value": new})


_ABSENT = object()
"""A key `before` lacks (None is a value a table may hold)."""
