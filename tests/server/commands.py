"""A wire form of every engine command, made from the command's own fields.

The role matrix sends every command of a ruleset; writing each by hand would let a new
command slip through untested. Here a command's map is built from its record's type
hints (as the server reads it, `server/gateway/commands.py`): every string field names
the combatant the command acts for, so a "controller" command acts for that combatant
whichever field `acting_for` reads; the speaker field (`Pause.by`) says who speaks;
other required fields get a plain value of their type. The engine may refuse the
result as illegal now (that is not what the matrix checks), but the server always reads
it as a well-formed command, so `forbidden` can never hide behind `invalid_command`.
"""

from __future__ import annotations

import dataclasses
import types
from enum import Enum
from typing import Any, Union, get_args, get_origin, get_type_hints

from server.engine.core import Command

TAG = "$type"


def wire_command(cls: type[Command], actor: str, speaker: str) -> dict[str, Any]:
    """Command `cls` acting for `actor`, spoken by `speaker`, as a client sends it."""
    data: dict[str, Any] = {"type": cls.__name__}
    data.update(_fields(cls, actor, speaker, required_only=False))
    return data


def _fields(cls: type, actor: str, speaker: str, *, required_only: bool) -> dict[str, Any]:
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        required = field.default is dataclasses.MISSING
        if field.name == getattr(cls, "speaker", ""):
            values[field.name] = speaker
        elif hint is str and not required_only:
            values[field.name] = actor
        elif required:
            values[field.name] = _value(hint, actor, speaker)
    return values


def _value(hint: Any, actor: str, speaker: str) -> Any:
    """A plain wire value of type `hint`."""
    if hint is str:
        return actor
    if hint is bool:
        return False
    if hint is int:
        return 1
    if hint is float:
        return 1.0
    if isinstance(hint, type) and issubclass(hint, Enum):
        return next(iter(hint)).value
    if hint is Command:
        return {TAG: "HoldAction", "actor": actor}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return {TAG: hint.__name__, **_fields(hint, actor, speaker, required_only=True)}
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return [_value(args[0], actor, speaker)]
        return [_value(arg, actor, speaker) for arg in args]
    if origin is dict:
        return {_value(args[0], actor, speaker): _value(args[1], actor, speaker)}
    if origin in (Union, types.UnionType):
        chosen = next(arg for arg in args if arg is not type(None))
        return _value(chosen, actor, speaker)
    raise TypeError(f"no sample wire value for {hint!r}: teach tests/server/commands.py")
