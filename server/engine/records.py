"""Immutable records and their plain-data form.

Everything in the encounter state and every command and event is a `record`: an
immutable, slotted dataclass registered by class name. The registry gives one generic
codec to plain data (`to_data`/`from_data`), used to store logs, to hash states and
to check that replay reproduces a state exactly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")
_TYPES: dict[str, type] = {}
_EVOLVERS: dict[type, Callable[..., Any]] = {}
_TAG = "$type"


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """Make `cls` a slotted dataclass, immutable by contract, known to the codec by name.

    Records are frozen for the type checker (`frozen_default=True`: mypy refuses any
    assignment to a field) but not at run time: a frozen dataclass pays one
    `object.__setattr__` per field on every construction, which doubled the cost of
    every roll and event. Nothing assigns to a record's fields; `evolve` makes changed
    copies, and the property tests check that `decide` and `apply` leave their inputs'
    state hash untouched.
    """
    made = dataclasses.dataclass(slots=True, eq=True, unsafe_hash=True)(cls)
    name = made.__name__
    known = _TYPES.get(name)
    # Records are known by name alone (on the wire, in logs): two rulesets may not each
    # define a record of the same name, or the second would silently replace the first.
    if known is not None and (known.__module__, known.__qualname__) != (
        made.__module__,
        made.__qualname__,
    ):
        raise TypeError(f"two records named {name}: {known} and {made}")
    for field in dataclasses.fields(made):  # type: ignore[arg-type]
        if field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"record field {name}.{field.name} may not use a default factory")
    _TYPES[name] = made
    _EVOLVERS[made] = _make_evolver(made)
    return made


def _make_evolver(cls: type) -> Callable[..., Any]:
    """Generate a copy-and-change function for `cls`.

    `dataclasses.replace` re-runs `__init__` through keyword arguments; copying the
    slots directly is several times faster, and `apply` does it for every event.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    lines = ["def evolve(self, changes):", "    new = _new(_cls)"]
    lines += [f"    new.{n} = self.{n}" for n in names]
    lines += ["    for k, v in changes.items():", "        _setattr(new, k, v)", "    return new"]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_setattr": setattr}
    exec("\n".join(lines), namespace)
    evolver: Callable[..., Any] = namespace["evolve"]
    return evolver


def evolver_of(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    """The copy-and-change function of a record class, for hot paths: `f(value, changes)`."""
    return _EVOLVERS[cls]


def evolve(value: T, **changes: Any) -> T:
    """A copy of record `value` with some fields changed (the record stays untouched)."""
    result: T = _EVOLVERS[type(value)](value, changes)
    return result


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_SCALARS = frozenset({str, int, float, bool, type(None)})


def to_data(value: Any) -> Any:
    """Plain JSON-able data: records become dicts tagged with their type name.

    Every event is turned into plain data for the log and again for each audience's
    view, so the common cases come first and by exact type: scalars, then records
    already seen, then tuples. Subclasses of scalars (a `StrEnum` member) stay as they
    are, as before."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    names = _FIELD_NAMES.get(kind)
    if names is not None:
        data: dict[str, Any] = {_TAG: kind.__name__}
        for name in names:
            data[name] = to_data(getattr(value, name))
        return data
    if kind is tuple or kind is list:
        return [to_data(v) for v in value]
    if isinstance(value, (str, int, float, bool)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(value))
        return to_data(value)
    if isinstance(value, (tuple, list)):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    raise TypeError(f"cannot encode {type(value).__name__}")


def from_data(data: Any) -> Any:
    """The inverse of `to_data`: lists become tuples, tagged dicts become records."""
    if isinstance(data, list):
        return tuple(from_data(v) for v in data)
    if isinstance(data, dict):
        if _TAG in data:
            cls = _TYPES.get(data[_TAG])
            if cls is None:
                raise ValueError(f"unknown record type {data[_TAG]!r}")
            return cls(**{k: from_data(v) for k, v in data.items() if k != _TAG})
        return {k: from_data(v) for k, v in data.items()}
    return data


def digest(value: Any) -> str:
    """A SHA-256 over the canonical plain-data form: equal states, equal digests."""
    text = json.dumps(to_data(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
