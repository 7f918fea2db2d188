"""Immutable records and their plain-data form.

Everything in the encounter state and every command and event is a `record`: a
frozen, slotted dataclass registered by class name. The registry gives one generic
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
    """Make `cls` a frozen, slotted dataclass known to the codec by its class name."""
    made = dataclasses.dataclass(frozen=True, slots=True, init=False)(cls)
    made.__init__ = _make_init(made)  # type: ignore[misc]
    name = made.__name__
    if name in _TYPES and _TYPES[name].__qualname__ != made.__qualname__:
        raise TypeError(f"two records named {name}: {_TYPES[name]} and {made}")
    _TYPES[name] = made
    _EVOLVERS[made] = _make_evolver(made)
    return made


def _make_init(cls: type) -> Callable[..., None]:
    """Generate `__init__` for a frozen record, setting slots through their descriptors.

    The frozen `__init__` that `dataclasses` writes calls `object.__setattr__` once per
    field; this one is about twice as fast and behaves the same (records have no
    `__post_init__` and no default factories).
    """
    fields = dataclasses.fields(cls)
    namespace: dict[str, Any] = {}
    params = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"record field {cls.__name__}.{f.name} may not use a default factory")
        else:
            params.append(f.name)
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
    lines = [f"def __init__(self, {', '.join(params)}):" if params else "def __init__(self):"]
    lines += [f"    _set_{f.name}(self, {f.name})" for f in fields] or ["    pass"]
    exec("\n".join(lines), namespace)
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _make_evolver(cls: type) -> Callable[..., Any]:
    """Generate a copy-and-change function for `cls`.

    `dataclasses.replace` re-runs the frozen `__init__` (one `object.__setattr__` per
    field); copying the slots through their descriptors is about 4x faster, and
    `apply` does this for every event.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    lines = ["def evolve(self, changes):", "    new = _new(_cls)"]
    lines += [f"    _set_{n}(new, self.{n})" for n in names]
    lines += ["    for k, v in changes.items():", "        _setattr(new, k, v)", "    return new"]
    namespace: dict[str, Any] = {
        "_new": object.__new__,
        "_cls": cls,
        "_setattr": object.__setattr__,
    }
    for n in names:
        namespace[f"_set_{n}"] = cls.__dict__[n].__set__
    exec("\n".join(lines), namespace)
    evolver: Callable[..., Any] = namespace["evolve"]
    return evolver


def evolve(value: T, **changes: Any) -> T:
    """A copy of record `value` with some fields changed (the record stays untouched)."""
    result: T = _EVOLVERS[type(value)](value, changes)
    return result


def to_data(value: Any) -> Any:
    """Plain JSON-able data: records become dicts tagged with their type name."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = {_TAG: type(value).__name__}
        for field in dataclasses.fields(value):
            data[field.name] = to_data(getattr(value, field.name))
        return data
    if isinstance(value, (tuple, list)):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
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
