"""`docs/protocol.md` stays complete and true: every code, command, event and message is
in it, its generated references match the engine, and its JSON examples decode."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from typing import Any

import pytest

import server.engine.errors as engine_errors
import server.engine.rulesets.tael.errors as tael_errors
from protocol.codec import decode, decode_server
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES
from server.engine.core import RULESETS, Event
from server.engine.errors import CommandRefused
from server.engine.records import from_data, to_data
from server.gateway.commands import CommandReader
from tests.protocol import command_reference as reference

DOC = reference.DOC.read_text()
CLIENT_TYPES = {m.model_fields["type"].default for m in CLIENT_MESSAGES}
SERVER_TYPES = {m.model_fields["type"].default for m in SERVER_MESSAGES}


def codes_of(module: Any) -> set[str]:
    """The refusal codes a module of codes defines (its upper-case string constants)."""
    return {
        value for name, value in vars(module).items() if name.isupper() and isinstance(value, str)
    }


ENGINE_CODES = codes_of(engine_errors)
TAEL_CODES = codes_of(tael_errors)


def section(title: str) -> str:
    """The text of the doc's section headed `title` (up to the next heading as high)."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", DOC, re.MULTILINE)
    assert match, f"no section {title!r}"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def json_examples() -> list[Any]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)]


@pytest.mark.parametrize("name", sorted(reference.BLOCKS))
def test_the_generated_references_match_the_engine(name: str) -> None:
    assert reference.block(DOC, name) == reference.BLOCKS[name](), (
        "docs/protocol.md is behind the engine: run "
        "`.venv/bin/python -m tests.protocol.command_reference --write`"
    )


def test_every_command_has_a_checked_example() -> None:
    names = {cls.__name__ for cls in reference.commands()}
    assert set(reference.EXAMPLES) == names
    for name in sorted(names - reference.ABBREVIATED):
        command = reference.wire_to_record(reference.EXAMPLES[name])
        assert type(command).__name__ == name
        fields = {k: v for k, v in reference.EXAMPLES[name].items() if k != "type"}
        assert within(fields, to_data(command)), name  # nothing dropped or altered


def within(example: Any, data: Any) -> bool:
    """`example` is `data` with some defaulted fields of nested records left out."""
    if isinstance(example, dict):
        return isinstance(data, dict) and all(
            k in data and within(v, data[k]) for k, v in example.items()
        )
    if isinstance(example, list):
        return (
            isinstance(data, list)
            and len(example) == len(data)
            and all(within(e, d) for e, d in zip(example, data, strict=True))
        )
    return bool(example == data)


def test_each_ruleset_reads_its_documented_commands_as_the_server_does() -> None:
    """The server's own reader of each room (`gateway/commands.py`) takes every example
    of its ruleset, and refuses the other's own commands with `unknown_command`, as the
    Tael section says."""
    verse = CommandReader(RULESETS["verse"])
    tael = CommandReader(RULESETS["tael"])
    verse_only = {cls.__name__ for cls in reference.verse_commands()} - {
        cls.__name__ for cls in reference.shared_tael_commands()
    }
    for cls in reference.commands():
        name = cls.__name__
        if name in reference.ABBREVIATED:
            continue
        example = reference.EXAMPLES[name]
        tael_only = cls in reference.tael_commands()
        reader, other = (tael, verse) if tael_only else (verse, tael)
        assert type(reader.read(example)) is cls, name
        if tael_only or name in verse_only:
            with pytest.raises(CommandRefused) as refused:
                other.read(example)
            assert refused.value.code == "unknown_command", name
        elif _nests(example, verse_only):  # Answer's example answers with a Verse Attack
            with pytest.raises(CommandRefused) as refused:
                tael.read(example)
            assert refused.value.code == "invalid_command", name
        else:
            assert type(tael.read(example)) is cls, name  # shared: both rooms take it
    strike = {k: v for k, v in reference.EXAMPLES["PreparedStrike"].items() if k != "type"}
    riposte = {
        "type": "Answer",
        "actor": "kaelen",
        "window": 5,
        "option": "Riposte",
        "action": {"$type": "PreparedStrike", **strike},
    }
    assert tael.read(riposte) == reference.wire_to_record(riposte)  # Tael's own answer


def _nests(value: Any, names: set[str]) -> bool:
    """Does `value` hold a record tagged with one of `names`?"""
    if isinstance(value, dict):
        return value.get("$type") in names or any(_nests(v, names) for v in value.values())
    if isinstance(value, list):
        return any(_nests(v, names) for v in value)
    return False


def test_the_command_type_tag_cannot_clash_with_a_field() -> None:
    """`send.command` names its command in `type`: no command has a field of that name."""
    for cls in reference.commands():
        assert "type" not in {f.name for f in dataclasses.fields(cls)}, cls


def test_every_error_code_and_close_code_is_documented() -> None:
    errors = section("Error codes")
    for code in ErrorCode:
        assert f"| `{code.value}` |" in errors, code
    closes = section("Close codes")
    for close in CloseCode:
        assert f"| {close.value} |" in closes, close


def test_every_engine_refusal_code_is_documented() -> None:
    refusals = section("Refusal codes")
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", refusals, re.MULTILINE))
    assert listed == ENGINE_CODES | TAEL_CODES | {ErrorCode.RATE_LIMITED.value}


def test_tael_refusal_codes_say_they_are_tael_s_and_clash_with_no_shared_code() -> None:
    refusals = section("Refusal codes")
    assert TAEL_CODES and not TAEL_CODES & ENGINE_CODES
    for code in TAEL_CODES:
        assert f"| `{code}` | World of Tael: " in refusals, code


def test_codes_the_protocol_shares_with_the_engine_are_the_same_strings() -> None:
    assert ErrorCode.FORBIDDEN == engine_errors.FORBIDDEN
    assert ErrorCode.ROOM_BUSY == engine_errors.ROOM_BUSY
    assert ErrorCode.ROOM_CLOSED == engine_errors.ROOM_CLOSED
    assert ErrorCode.RATE_LIMITED not in ENGINE_CODES  # one meaning per string


def test_every_message_has_a_section_and_an_example() -> None:
    examples = {e.get("type") for e in json_examples() if isinstance(e, dict)}
    for name in CLIENT_TYPES | SERVER_TYPES:
        assert f"#### `{name}`" in DOC, name
        assert name in examples, name


def _check_event(data: dict[str, Any]) -> None:
    event = from_data(data)
    assert isinstance(event, Event), data
    reference.check_types(event)  # the same checks as the commands' examples
    assert to_data(event) == data  # every field written out, none unknown


def test_every_json_example_decodes_as_what_it_shows() -> None:
    checked = {"client": 0, "server": 0, "command": 0, "event": 0}
    commands = {cls.__name__ for cls in reference.commands()}
    for example in json_examples():
        kind = example.get("type") if "type" in example else example.get("$type")
        frame = json.dumps(example)
        if kind in CLIENT_TYPES:
            decode(frame)
            checked["client"] += 1
            if kind == "send" and example["command"]["type"] not in reference.ABBREVIATED:
                reference.wire_to_record(example["command"])
        elif kind in SERVER_TYPES:
            message = decode_server(frame)
            checked["server"] += 1
            for item in getattr(message, "events", None) or []:
                _check_event(item.event)
        elif kind in commands:
            if kind not in reference.ABBREVIATED:
                reference.wire_to_record(example)
            checked["command"] += 1
        else:
            _check_event(example)
            checked["event"] += 1
    assert checked["command"] == len(commands)
    assert min(checked.values()) > 0, checked


def test_the_main_events_have_examples() -> None:
    shown = {e["$type"] for e in json_examples() if "$type" in e}
    for name in (
        "AttackRolled",
        "DamageDealt",
        "WindowOpened",
        "WindowClosed",
        "DeclarationMade",
        "DeclarationsRevealed",
        "ActionPushed",
        "ActionLost",
        "Answered",
        "Passed",
        "Paused",
        "Resumed",
    ):
        assert name in shown, name


def test_the_protocol_package_loads_no_server_module() -> None:
    """What import-linter checks statically, at run time: a client gets no server."""
    script = (
        "import sys, protocol, protocol.codec, protocol.messages, protocol.errors; "
        "print(sorted(m for m in sys.modules if m == 'server' or m.startswith('server.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
