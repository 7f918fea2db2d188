"""A file schema derived from the engine's own records: one schema, no hand-made mirror.

The engine's sheet records (frozen dataclasses, `server/engine/records.py`) already say
which fields a sheet has, their types and their defaults. pydantic can validate such
dataclasses directly (`TypeAdapter(VerseSheet)` works), but two things a human-edited
file needs cannot live on the records, because the engine may import nothing but the
standard library: bounds (`health >= 1`) and checks such as "this dice expression
parses". So `SheetSchema` builds one pydantic model per record from the record's
fields, type hints and defaults, and adds only what the ruleset declares on top:

* `constraints`: pydantic metadata per (record, field), e.g. `Field(ge=0)`;
* `file_fields`: a field whose file form differs from the record form, e.g. Verse
  `training` is a table `{one_handed = 2}` in a file and a tuple of pairs in a record.

Scalars are strict (`level = "1"` or `level = true` is an error, not a guess); enums
are given by their string values; unknown keys are refused. A field added to a record
appears in the file format by itself.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)
from pydantic_core import ErrorDetails

from server.engine.errors import cut

_STRICT: dict[Any, Any] = {int: StrictInt, float: StrictFloat, str: StrictStr, bool: StrictBool}
_CONFIG = ConfigDict(extra="forbid", frozen=True)
_EXPECTED = {
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "string_type": "text",
    "bool_type": "true or false",
}


@dataclasses.dataclass(frozen=True)
class FileField:
    """A record field written differently in files: its file type and both conversions."""

    type: Any
    to_record: Callable[[Any], Any]
    to_file: Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing wrong with a file: where (`weapons[1].damage`, "" for the whole file), why."""

    path: str
    reason: str

    def line(self, source: str) -> str:
        return f"{source}: {self.path}: {self.reason}" if self.path else f"{source}: {self.reason}"


def is_record(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


class SheetSchema:
    """The file form of record `root` and everything inside it."""

    def __init__(
        self,
        root: type,
        constraints: Mapping[type, Mapping[str, tuple[Any, ...]]],
        file_fields: Mapping[tuple[type, str], FileField] | None = None,
    ) -> None:
        self.root = root
        self.constraints = constraints
        self.file_fields = dict(file_fields or {})
        self._models: dict[type, type[BaseModel]] = {}
        self._records: dict[type[BaseModel], type] = {}
        self.model = self._model_for(root)
        self._check_declarations()

    # --- building the models -------------------------------------------------------

    def _model_for(self, cls: type) -> type[BaseModel]:
        found = self._models.get(cls)
        if found is not None:
            return found
        hints = get_type_hints(cls)
        declared = self.constraints.get(cls, {})
        fields: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            special = self.file_fields.get((cls, field.name))
            file_type = special.type if special else self._file_type(hints[field.name])
            file_type = _constrained(file_type, declared.get(field.name, ()))
            default = ... if field.default is dataclasses.MISSING else field.default
            if special and default is not ...:
                default = special.to_file(default)
            fields[field.name] = (file_type, default)
        model: type[BaseModel] = create_model(f"{cls.__name__}File", __config__=_CONFIG, **fields)
        self._models[cls] = model
        self._records[model] = cls
        return model

    def _file_type(self, hint: Any) -> Any:
        """The file type for a record type hint: scalars strict, records as their models."""
        if hint in _STRICT:
            return _STRICT[hint]
        if hint is type(None) or (isinstance(hint, type) and issubclass(hint, Enum)):
            return hint
        if is_record(hint):
            return self._model_for(hint)
        args = get_args(hint)
        if get_origin(hint) is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple[self._file_type(args[0]), ...]  # type: ignore[misc]
            return tuple[tuple(self._file_type(a) for a in args)]  # type: ignore[misc]
        if _is_union(hint):
            return Union[tuple(self._file_type(a) for a in args)]  # noqa: UP007
        raise TypeError(f"no file form for the record type {hint!r}")

    def _check_declarations(self) -> None:
        """Every constraint and file field must name a real field of a record in the schema."""
        for cls, declared in self.constraints.items():
            names = {f.name for f in dataclasses.fields(cls)}
            unknown = set(declared) - names
            if cls not in self._models or unknown:
                raise TypeError(f"constraints name no field of the schema: {cls}, {unknown}")
        for cls, name in self.file_fields:
            if cls not in self._models or name not in {f.name for f in dataclasses.fields(cls)}:
                raise TypeError(f"file field {cls.__name__}.{name} is not in the schema")

    @property
    def records(self) -> tuple[type, ...]:
        """Every record type a file of this schema describes, the root first."""
        return tuple(self._models)

    # --- reading and writing -------------------------------------------------------

    def validate(self, data: Any) -> Any:
        """The record for plain file data; raises pydantic's `ValidationError`."""
        return self._to_record(self.model.model_validate(data))

    def _to_record(self, value: Any) -> Any:
        if isinstance(value, BaseModel):
            cls = self._records[type(value)]
            values: dict[str, Any] = {}
            for name in type(value).model_fields:
                converted = self._to_record(getattr(value, name))
                special = self.file_fields.get((cls, name))
                values[name] = special.to_record(converted) if special else converted
            return cls(**values)
        if isinstance(value, tuple):
            return tuple(self._to_record(v) for v in value)
        return value

    def to_file_data(self, value: Any, *, defaults: bool = False) -> Any:
        """Plain data in file form (JSON-able, TOML-able): the inverse of `validate`.

        Fields equal to their default are left out unless `defaults` is true.
        """
        if is_record(type(value)):
            out: dict[str, Any] = {}
            for field in dataclasses.fields(value):
                current = getattr(value, field.name)
                if not defaults and current == field.default:
                    continue  # a required field's default is MISSING: never equal
                special = self.file_fields.get((type(value), field.name))
                if special:
                    current = special.to_file(current)
                out[field.name] = self.to_file_data(current, defaults=defaults)
            return out
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, (tuple, list)):
            return [self.to_file_data(v, defaults=defaults) for v in value]
        if isinstance(value, dict):
            return {k: self.to_file_data(v, defaults=defaults) for k, v in value.items()}
        return value

    # --- errors ----------------------------------------------------------------------

    def problems(self, error: ValidationError) -> list[Problem]:
        """pydantic's errors as one readable `Problem` each, with the field's path."""
        return [Problem(path_of(e["loc"]), self._reason(e)) for e in error.errors()]

    def _reason(self, error: ErrorDetails) -> str:
        kind = error["type"]
        value = error.get("input")
        if kind == "missing":
            return "required field is missing"
        if kind == "extra_forbidden":
            return self._unknown_field(error["loc"])
        if kind in ("model_type", "dataclass_type", "dict_type"):
            return f"expected a table, got {_shown(value)}"
        if kind == "tuple_type":
            return f"expected an array, got {_shown(value)}"
        ctx = error.get("ctx", {})
        if kind == "value_error":
            return str(ctx.get("error", error["msg"]))
        if kind == "greater_than_equal":
            return f"must be at least {ctx['ge']}, got {_shown(value)}"
        if kind == "enum":
            return f"must be one of {ctx['expected']}, got {_shown(value)}"
        if kind in _EXPECTED:
            return f"must be {_EXPECTED[kind]}, got {_shown(value)}"
        message = error["msg"]
        return f"{message[0].lower()}{message[1:]}, got {_shown(value)}"

    def _unknown_field(self, loc: tuple[int | str, ...]) -> str:
        name = str(loc[-1])
        allowed = self._fields_at(loc[:-1])
        close = difflib.get_close_matches(name, allowed, n=1)
        if close:
            return f"unknown field {name!r} (did you mean {close[0]!r}?)"
        return f"unknown field {name!r}; allowed here: {', '.join(allowed)}"

    def _fields_at(self, loc: tuple[int | str, ...]) -> list[str]:
        """The field names of the table at `loc` (walking models, arrays and optionals)."""
        current: Any = self.model
        for step in loc:
            current = _unwrap(current)
            if isinstance(step, str) and isinstance(current, type):
                if issubclass(current, BaseModel) and step in current.model_fields:
                    current = current.model_fields[step].annotation
                    continue
            elif isinstance(step, int) and get_origin(current) is tuple:
                current = get_args(current)[0]
                continue
            return []
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            return list(current.model_fields)
        return []


def _constrained(file_type: Any, constraints: tuple[Any, ...]) -> Any:
    """`file_type` with pydantic metadata; on an optional field, on its non-None arm."""
    if not constraints:
        return file_type
    if _is_union(file_type) and type(None) in get_args(file_type):
        arms = [a for a in get_args(file_type) if a is not type(None)]
        inner = Union[tuple(arms)] if len(arms) > 1 else arms[0]  # noqa: UP007
        return Annotated[inner, *constraints] | None
    return Annotated[file_type, *constraints]


def _unwrap(hint: Any) -> Any:
    while True:
        origin = get_origin(hint)
        if origin is Annotated:
            hint = get_args(hint)[0]
        elif _is_union(hint):
            arms = [a for a in get_args(hint) if a is not type(None)]
            if len(arms) != 1:
                return hint
            hint = arms[0]
        else:
            return hint


def path_of(loc: tuple[int | str, ...]) -> str:
    """`('weapons', 1, 'damage')` -> `weapons[1].damage`; a long name in the path (a
    table's key) is cut to its start (`errors.cut`)."""
    path = ""
    for step in loc:
        if isinstance(step, int):
            path += f"[{step}]"
        else:
            path += f".{cut(step)}" if path else cut(str(step))
    return path


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "an array"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
