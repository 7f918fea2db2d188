"""The value types every message is made of: bounded numbers, names, plain data.

Shared by `messages.py` (the messages) and `table.py` (what a thin client draws), so
neither imports the other's internals.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Final, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, FailFast, Field, StringConstraints
from typing_extensions import TypeAliasType

MAX_SEQ: Final = 2**63 - 1  # sequence numbers fit msgpack's int64
MAX_NAME = 64  # ids and names: cid, combatant ids, client name, room id, command type
MAX_TOKEN = 4096
MAX_TEXT = 1024  # human-readable messages

Seq = Annotated[int, Field(ge=0, le=MAX_SEQ)]
Count = Annotated[int, Field(ge=0, le=MAX_SEQ)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Code = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=MAX_NAME)]
RECORD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
"""An engine record's class name: `Attack`, `AttackRolled`, `Cell`."""

Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
if TYPE_CHECKING:
    PlainValue: TypeAlias = (
        dict[str, "PlainValue"] | list["PlainValue"] | str | int | float | bool | None
    )
    PlainData: TypeAlias = dict[str, PlainValue]
else:  # named recursive types for pydantic (as pydantic's own JsonValue is made)
    # FailFast: a collection stops at its first bad item. Without it a 64 KiB frame of
    # 30,000 bad values costs pydantic 200,000 errors and half a second of CPU.
    PlainData = TypeAliasType("PlainData", Annotated[dict[str, "PlainValue"], FailFast()])
    PlainList = TypeAliasType("PlainList", Annotated[list["PlainValue"], FailFast()])
    PlainValue = TypeAliasType(
        "PlainValue", PlainData | PlainList | str | Int64 | float | bool | None
    )
"""`PlainValue`: a JSON-able value that msgpack can carry too: strings, booleans, null,
finite floats, integers of at most 64 bits (a larger one, as from JSON, is read as a
float), lists, and maps with string keys. `PlainData`: such a map."""


def tagged_by(key: str) -> AfterValidator:
    """A map that names its engine record in `key`: `type` for `Send.command`, `$type`
    for an event (the engine's plain-data tag)."""

    def check(data: PlainData) -> PlainData:
        name = data.get(key)
        if not isinstance(name, str) or RECORD_NAME.fullmatch(name) is None:
            raise ValueError(f"needs {key!r}: the name of an engine record, such as 'Attack'")
        return data

    return AfterValidator(check)


class Strict(BaseModel):
    """Every message and every part of one: unknown fields refused, strict types (no
    `"1"` for `1`, no `1.0` or `true` for an integer), no NaN or infinity, frozen."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)
