"""Engine commands off the wire: a `send`'s command map checked against the engine.

The envelope (`protocol.messages.Send`) only says "a map of plain values with a
`type`". Here that map becomes the engine's own command record, or a refusal that
changes nothing:

* `unknown_command`: `type` names no command of the room's ruleset;
* `invalid_command`: a missing or unknown field, or a value of the wrong type.

Validation is pydantic's, with one model per record generated from the record's own
fields and type hints (as `server/sheets/schema.py` does for sheets), so a field added
to a command is on the wire by itself and no check is written by hand. Scalars are
strict (no `"3"` for `3`), enums are given by value, lists stand for tuples, nested
records are maps tagged with `$type` (as in events), and a field typed as a command
(`Declare.actions`, `Answer.action`) accepts exactly the ruleset's commands, each
validated the same way. A value the engine could not have made never reaches
`decide`.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from enum import Enum
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictStr,
    Tag,
    TypeAdapter,
    ValidationError,
    create_model,
)

from server.engine.core import RULESETS, Command, Ruleset
from server.engine.errors import INVALID_COMMAND, UNKNOWN_COMMAND, CommandRefused
from server.sheets import sheet_problems

_TAG = "$type"
MAX_COMMAND_INT = 2**31 - 1
"""A command's whole numbers lie within ±MAX_COMMAND_INT: ample for any number a table
plays with, and small enough that what the rules work out from them (costs, sums,
drains) stays within the 64 bits the wire carries (docs/protocol.md, "Connecting")."""
_COMMAND_INT = Annotated[int, Field(strict=True, ge=-MAX_COMMAND_INT, le=MAX_COMMAND_INT)]
_STRICT: dict[Any, Any] = {
    int: _COMMAND_INT,
    float: StrictFloat,
    str: StrictStr,
    bool: StrictBool,
}
_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Wire values that are their record's value as they are."""
_CONFIG = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def commands_of(ruleset: Ruleset) -> dict[str, type[Command]]:
    """Every command a ruleset decides (its own and its parents'), by record name."""
    found: dict[str, type[Command]] = {}
    current: Ruleset | None = ruleset
    while current is not None:
        for cls in current.deciders:
            if issubclass(cls, Command):
                found.setdefault(cls.__name__, cls)
        current = current.parent
    return found


@cache
def reader_for(ruleset: str) -> CommandReader:
    """The reader of the ruleset named `ruleset`, built once for the process: building
    one makes a pydantic model of every command (a third of a second), which a room's
    first start would otherwise wait for (`App.start` builds them before serving)."""
    return CommandReader(RULESETS[ruleset])


class CommandReader:
    """Turns wire command maps into the commands of one ruleset."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.commands = commands_of(ruleset)
        self._models: dict[tuple[type, bool], type[BaseModel]] = {}
        self._records: dict[type[BaseModel], tuple[type, tuple[tuple[str, bool], ...]]] = {}
        self._command_union: Any = None
        self._adapters: dict[str, TypeAdapter[Any]] = {}
        for name, cls in self.commands.items():
            self._adapters[name] = TypeAdapter(self._model_for(cls, tagged=False))

    def read(self, data: Mapping[str, Any]) -> Command:
        """The command `data` describes (`{"type": "Attack", ...}`), or `CommandRefused`."""
        name = data.get("type")
        adapter = self._adapters.get(name) if isinstance(name, str) else None
        if adapter is None:
            raise CommandRefused(
                UNKNOWN_COMMAND, f"{name!r} is not a command of {self.ruleset.name}"
            )
        fields = {k: v for k, v in data.items() if k != "type"}
        try:
            model = adapter.validate_python(fields)
        except ValidationError as error:
            raise CommandRefused(INVALID_COMMAND, f"{name}: {_first_problem(error)}") from None
        command: Command = self._to_record(model)
        for field, plain in self._records[type(model)][1]:
            if plain:  # a scalar holds no sheet
                continue
            # A combatant added over the wire gets the checks a sheet file gets (a
            # damage die of "1x6" would otherwise fail only when it is first rolled).
            problems = sheet_problems(getattr(getattr(command, field), "sheet", None))
            if problems:
                first = problems[0]
                raise CommandRefused(INVALID_COMMAND, f"{name}: sheet.{first.path}: {first.reason}")
        return command

    # --- building the models ---------------------------------------------------------

    def _model_for(self, cls: type, *, tagged: bool) -> type[BaseModel]:
        """The model of record `cls`; `tagged` models carry the `$type` field too (nested
        records), untagged ones are the top-level command whose name is `type`."""
        key = (cls, tagged)
        found = self._models.get(key)
        if found is not None:
            return found
        hints = get_type_hints(cls)
        fields: dict[str, Any] = {}
        plain: list[tuple[str, bool]] = []
        for field in dataclasses.fields(cls):
            default = ... if field.default is dataclasses.MISSING else field.default
            fields[field.name] = (self._wire_type(hints[field.name]), default)
            plain.append((field.name, _is_plain(hints[field.name])))
        name = f"{cls.__name__}{'Tagged' if tagged else 'Wire'}"
        if tagged:
            fields["type_"] = (Annotated[Literal[cls.__name__], Field(alias=_TAG)], ...)
        model: type[BaseModel] = create_model(name, __config__=_CONFIG, **fields)
        self._models[key] = model
        # the record and its fields in order, looked up once (pydantic's `model_fields`
        # on the class is a deprecation shim that cost a tenth of reading a command),
        # each marked when its wire value is the record's value as it is
        self._records[model] = (cls, tuple(plain))
        return model

    def _wire_type(self, hint: Any) -> Any:
        if hint in _STRICT:
            return _STRICT[hint]
        if hint is type(None):
            return hint
        if isinstance(hint, type) and issubclass(hint, Enum):
            return hint
        if hint is Command:
            return self._any_command()
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._model_for(hint, tagged=True)
        origin, args = get_origin(hint), get_args(hint)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return list[self._wire_type(args[0])]  # type: ignore[misc]
            return tuple[tuple(self._wire_type(a) for a in args)]  # type: ignore[misc]
        if origin is dict:
            return dict[self._wire_type(args[0]), self._wire_type(args[1])]  # type: ignore[misc]
        if origin in (Union, types.UnionType):
            return Union[tuple(self._wire_type(a) for a in args)]  # noqa: UP007
        if hint is Any:
            return Any
        raise TypeError(f"no wire form for the record type {hint!r}")

    def _any_command(self) -> Any:
        """Any command of the ruleset that holds no command itself, chosen by its `$type`
        tag: a `Declare` inside a `Declare` means nothing, and leaving such commands out
        keeps the models finite."""
        if self._command_union is None:
            choices = tuple(
                Annotated[self._model_for(cls, tagged=True), Tag(name)]
                for name, cls in self.commands.items()
                if not _holds_command(cls)
            )
            self._command_union = Annotated[
                Union[choices],  # noqa: UP007
                Discriminator(
                    _command_tag,
                    custom_error_type="unknown_command",
                    custom_error_message="not an action of this ruleset",
                ),
            ]
        return self._command_union

    def _to_record(self, value: Any) -> Any:
        if type(value) in _PLAIN:  # most of a command: no look-ups for these
            return value
        made = self._records.get(type(value))
        if made is not None:
            cls, fields = made
            return cls(
                *[
                    getattr(value, name) if plain else self._to_record(getattr(value, name))
                    for name, plain in fields
                ]
            )
        if isinstance(value, (list, tuple)):
            return tuple(self._to_record(v) for v in value)
        if isinstance(value, dict):
            return {k: self._to_record(v) for k, v in value.items()}
        return value


def _is_plain(hint: Any) -> bool:
    """Is a field of this type given by pydantic as the record wants it: a scalar, an
    enum member, or a union of those (no list to make a tuple, no model to make a
    record)?"""
    if hint in _PLAIN or (isinstance(hint, type) and issubclass(hint, Enum)):
        return True
    if get_origin(hint) in (Union, types.UnionType):
        return all(_is_plain(arg) for arg in get_args(hint))
    return False


def _holds_command(cls: type) -> bool:
    """Does a field of command `cls` hold a command (`Declare.actions`, `Answer.action`)?"""

    def mentions(hint: Any) -> bool:
        return hint is Command or any(mentions(arg) for arg in get_args(hint))

    return any(mentions(hint) for hint in get_type_hints(cls).values())


def _command_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        tag = value.get(_TAG)
        return tag if isinstance(tag, str) else None
    return None


def _first_problem(error: ValidationError) -> str:
    """pydantic's first error as `path: reason`, short enough for a `refused` message."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"] if part != "type_") or "(command)"
    return f"{path}: {first['msg']}"[:300]
