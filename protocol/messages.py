"""The wire messages: typed, versioned, validated by pydantic (issue 4, "Protocol").

Every message is a map with a `type` field naming it (lower case, so it never clashes
with an engine name). Client to server: `hello`, `send`, `create`, `renew`, `rooms`,
`invites`, `revoke`, `peek`, `read_sheet`, `ping`. Server to client: `welcome`, `ack`,
`refused`, `error`, `table`, `update`, `log`, `choices`, `window`, `events`, `snapshot`,
`created`, `listing`, `codes`, `peeked`, `sheet_read`, `pong`.
`docs/protocol.md` shows each one with an example.

Validation is pydantic's, not hand-written checks: every model forbids unknown fields
(`extra="forbid"`), is strict (no `"1"` for `1`, no `1.0` or `true` for an integer) and
refuses NaN and infinities. Lists, not tuples, since that is what msgpack and JSON
decode to.

Engine data crosses the wire as plain data and is validated here only as JSON-able
values: a command in `Send.command` (`{"type": "Attack", "actor": ..., ...}`; its
fields are checked by the server against the engine's command record), an event in
`Events` (the engine's plain-data form, tagged with `"$type"`, redacted for the
audience), the state in `Snapshot.view`. `protocol` never imports the engine
(import-linter), so clients depend on this package alone.

`PROTOCOL_VERSION` changes whenever a message changes shape; the subprotocol names in
`codec.py` carry it too.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, Field, StringConstraints

from protocol.table import LogLine, PatchOp, SeatChoices, TableView
from protocol.types import (
    MAX_NAME,
    MAX_SEQ,
    MAX_TOKEN,
    Code,
    Count,
    Name,
    PlainData,
    Seq,
    Strict,
    Text,
    tagged_by,
)

PROTOCOL_VERSION: Final = 2


class _Message(Strict, BaseModel):
    """Strict (`types.Strict`); BaseModel named again so linters see a pydantic model."""


# --- client to server -----------------------------------------------------------------


class Hello(_Message):
    """The first frame of every connection: who I am (the token) and where I was."""

    type: Literal["hello"] = "hello"
    protocol: Annotated[int, Field(ge=0, le=2**31 - 1)] = PROTOCOL_VERSION
    token: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN)]
    resume_from_seq: Seq | None = None  # the last event seq this client holds
    client: Annotated[str, StringConstraints(max_length=MAX_NAME)] = ""  # e.g. "combat-cli/0.1"
    events: bool = False
    """Also send the raw events (in `update.events`, and a `snapshot` on joining), for
    tools that read the engine's records; a client that only draws the table, the log
    and the choices leaves it false."""


class Send(_Message):
    """Send one engine command. `cid` is the client's id for it: a retry with the same
    `cid` (same token) is applied once and answered with the same `Ack`."""

    type: Literal["send"] = "send"
    cid: Name
    command: Annotated[PlainData, tagged_by("type")]


FileName = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class Create(_Message):
    """Create an encounter (a connection with a host token only): `encounter` is an
    encounter file's data with its sheets inline, or `files` holds the files' text
    (name -> text) and `file` names the encounter file among them, read as
    `combat create` reads them (docs/protocol.md). Answered by `Created`, or `Refused`
    (`invalid_encounter`, `forbidden`)."""

    type: Literal["create"] = "create"
    cid: Name
    encounter: PlainData = {}
    files: dict[FileName, str] = {}
    file: Annotated[str, StringConstraints(max_length=200)] = ""


class Renew(_Message):
    """Fresh tokens for an existing room (a connection with a host token only): the
    GM's, the spectators' and one per seat in `seats` (seat -> the combatants it plays,
    each in the room). Answered by `Created`, or `Refused` (`invalid_encounter`,
    `forbidden`). Tokens issued before stay valid until they expire."""

    type: Literal["renew"] = "renew"
    cid: Name
    room: Name
    seats: dict[Name, list[Name]] = {}


class Rooms(_Message):
    """The rooms this server (or cluster) knows, with how to join each (a connection
    with a host token only). Answered by `Listing`, or `Refused` (`forbidden`,
    `unavailable`)."""

    type: Literal["rooms"] = "rooms"
    cid: Name


InviteCode = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]


class Invites(_Message):
    """The room's invite codes (a GM's connection only). Answered by `Codes`, or
    `Refused` (`forbidden`, `unavailable`)."""

    type: Literal["invites"] = "invites"
    cid: Name


class Revoke(_Message):
    """Revoke one of the room's invite codes (a GM's connection only): it lets nobody in
    any more (`unauthorized`); connections already in stay. With `reissue`, the same
    seat (or the GM, the spectators) gets a fresh code. Answered by `Codes`, or
    `Refused` (`unknown_invite`: not a live code of this room; `forbidden`)."""

    type: Literal["revoke"] = "revoke"
    cid: Name
    code: InviteCode
    reissue: bool = False


class Peek(_Message):
    """The table as the GM saw it after event `seq`, before rewinding there (a GM's
    connection only): nothing changes. Answered by `Peeked`, or `Refused`
    (`invalid_command`: a seq a `Rewind` could not go to; `forbidden`; `unavailable`)."""

    type: Literal["peek"] = "peek"
    cid: Name
    seq: Seq


class ReadSheet(_Message):
    """Read a sheet file's text `text` (TOML, or JSON when `file` ends in `.json`) as the
    room's ruleset reads sheets (a GM's connection only), for an `AddCombatant`: a
    browser has no TOML parser. Nothing changes. Answered by `SheetRead`, or `Refused`
    (`invalid_command` with every problem; `forbidden`; `unknown_command` in a room
    whose ruleset has no `AddCombatant`)."""

    type: Literal["read_sheet"] = "read_sheet"
    cid: Name
    file: FileName
    text: str


class Ping(_Message):
    """Ask for a `Pong` (browsers cannot send websocket pings)."""

    type: Literal["ping"] = "ping"
    nonce: Annotated[int, Field(ge=0, le=MAX_SEQ)] | None = None


# --- server to client -----------------------------------------------------------------


class Welcome(_Message):
    """The handshake succeeded: who the token says you are, and where the room is."""

    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    room: Annotated[str, StringConstraints(max_length=MAX_NAME)]  # "" for a host
    ruleset: Annotated[str, StringConstraints(max_length=MAX_NAME)]  # "" for a host
    role: Literal["gm", "player", "spectator", "host"]
    seat: Annotated[str, StringConstraints(max_length=MAX_NAME)] = ""  # a player's seat
    controls: list[Name] = []  # the combatant ids this connection may act for
    seq: Seq  # the room's last event seq when the handshake completed
    web: Text = ""
    """For a host: the server's web app (`http://host:port/`), "" when it serves none;
    a page there opens a seat with `#join=` and the invite code (docs/protocol.md)."""


class Ack(_Message):
    """Command `cid` was applied: its events are `first_seq..last_seq`.

    A command that caused no event has `first_seq == last_seq ==` the room's seq then.
    """

    type: Literal["ack"] = "ack"
    cid: Name
    first_seq: Seq
    last_seq: Seq


class Refused(_Message):
    """Command `cid` was not applied and changed nothing."""

    type: Literal["refused"] = "refused"
    cid: Name
    code: Code  # an engine refusal code, or a protocol one (`rate_limited`)
    message: Text = ""


class Error(_Message):
    """A frame or the connection went wrong (`ErrorCode`); never a server internal."""

    type: Literal["error"] = "error"
    code: Code
    message: Text = ""


class Sequenced(_Message):
    """One event with its sequence number in the room's log."""

    seq: Annotated[int, Field(ge=1, le=MAX_SEQ)]
    event: Annotated[PlainData, tagged_by("$type")]


class Events(_Message):
    """A batch of events in seq order, redacted for this connection's audience."""

    type: Literal["events"] = "events"
    events: list[Sequenced]


class Snapshot(_Message):
    """The whole fight as this audience may see it, after event `seq`."""

    type: Literal["snapshot"] = "snapshot"
    seq: Seq
    view: PlainData


class Asked(_Message):
    """One combatant asked in a window, and the answers it may give."""

    combatant: Name
    options: list[Name]


class Window(_Message):
    """The open window's countdown, the same for every client.

    `remaining_ms` is the time left when the server sent this message, so no clock needs
    to agree with the server's: a client counts down from the moment it receives it.
    `seq` is the last event the countdown reflects. `running` is false while the fight
    is paused (the countdown is frozen at `remaining_ms`) and once the time ran out
    (the window closes with the next events).
    """

    type: Literal["window"] = "window"
    seq: Seq
    window: Count  # the window's id (the engine's Window.id)
    kind: Name  # "planning", "reaction", "counter", "adapt"
    about: Annotated[str, StringConstraints(max_length=MAX_NAME)] = ""
    asked: list[Asked]
    answered: list[Name] = []
    total_ms: Count
    remaining_ms: Count
    running: bool = True


# --- what a thin client draws (version 2; the shapes are in table.py) --------------


class Table(_Message):
    """The whole table after event `seq`: on joining, on resuming, after a gap."""

    type: Literal["table"] = "table"
    seq: Seq
    view: TableView


class Update(_Message):
    """One batch of events (one command's, or a countdown's): the table's `patch` from
    `from_seq` to `seq`, the batch's log lines, and, for a connection that asked for
    them in its `hello`, the raw events."""

    type: Literal["update"] = "update"
    from_seq: Seq
    seq: Seq
    patch: list[PatchOp] = []
    log: list[LogLine] = []
    events: list[Sequenced] | None = None


class WentBack(_Message):
    """The room's log no longer holds events after `seq` that this connection was sent,
    up to `from_seq` (a Redis failover or a network partition took them back:
    docs/deploy.md, "Durability"). What follows at once is the fight as the log has it:
    a `snapshot` for a connection that asked for events, the recent `log` lines and the
    `table`. Forget every event, line and table after `seq`; later sequence numbers
    follow the log, and may be ones this connection saw before for other events."""

    type: Literal["went_back"] = "went_back"
    seq: Seq
    from_seq: Seq
    message: Text = ""


class Log(_Message):
    """Log lines of events before the `table` that follows: what a joining client
    missed (the recent history the server keeps), oldest first."""

    type: Literal["log"] = "log"
    lines: list[LogLine]


class Choices(_Message):
    """What the combatants this connection plays may do now, after event `seq`; sent
    whenever it changes. A spectator never gets one.

    A `whole` one (the first after a join or after a whole `table`) holds every seat
    and replaces what the client held. Any other holds only what changed since the last
    `choices` of the connection: `seats` replace the held seats of their combatants,
    the seats of `gone` are dropped and, when a seat comes that was not held, `order`
    names the combatants of every seat held after it, in the order to show them (None:
    the held order stays). A big fight's GM thus gets the one seat a declaration
    changed, not all of them again (docs/protocol.md, "Choices")."""

    type: Literal["choices"] = "choices"
    seq: Seq
    whole: bool = True
    seats: list[SeatChoices] = []
    gone: list[Name] = []
    order: list[Name] | None = None


Token = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN)]
OptionalCode = Annotated[str, StringConstraints(max_length=MAX_NAME)]


class InviteCodes(_Message):
    """A room's invite codes, each standing for a token that does not expire: the GM's,
    one per player seat, the spectators'; `""` where the room has none."""

    gm: OptionalCode = ""
    players: dict[Name, OptionalCode] = {}
    spectator: OptionalCode = ""


class Created(_Message):
    """Encounter `room` exists: the tokens to join it, all expiring at `expires_at`
    (seconds since the epoch), and its invite codes. `players` maps each seat to its
    token."""

    type: Literal["created"] = "created"
    cid: Name
    room: Name
    name: Text = ""
    ruleset: Name
    gm: Token
    players: dict[Name, Token]
    spectator: Token
    expires_at: Count
    codes: InviteCodes = InviteCodes()


class Listed(_Message):
    """One room in a `Listing`: what the host created it with, its player seats (each
    seat's combatants), the combatants no seat plays (the GM's) and its invite codes."""

    room: Name
    name: Text = ""
    ruleset: Name
    mode: Annotated[str, StringConstraints(max_length=MAX_NAME)] = ""
    seats: dict[Name, list[Name]] = {}
    gm_plays: list[Name] = []
    codes: InviteCodes = InviteCodes()


class Listing(_Message):
    """The answer to `rooms`: every room the server knows, by id."""

    type: Literal["listing"] = "listing"
    cid: Name
    rooms: list[Listed]


class Codes(_Message):
    """The live invite codes of room `room`: the answer to `invites` and `revoke`."""

    type: Literal["codes"] = "codes"
    cid: Name
    room: Name
    codes: InviteCodes


class Peeked(_Message):
    """The answer to `peek`: the GM's table after event `seq`, as a rewind there would
    restore it (`view.version` is the `Rewind.to_version` that goes back to it)."""

    type: Literal["peeked"] = "peeked"
    cid: Name
    seq: Seq
    view: TableView


class SheetRead(_Message):
    """The answer to `read_sheet`: the combatant the sheet makes, as `AddCombatant` takes
    it (`VerseCombatant`, `TaelCombatant`), with `id` and `side` empty at cell 0,0 and
    facing 0, for the GM to set before sending it."""

    type: Literal["sheet_read"] = "sheet_read"
    cid: Name
    combatant: Annotated[PlainData, tagged_by("$type")]


class Pong(_Message):
    type: Literal["pong"] = "pong"
    nonce: Annotated[int, Field(ge=0, le=MAX_SEQ)] | None = None


ClientMessage = Annotated[
    Hello | Send | Create | Renew | Rooms | Invites | Revoke | Peek | ReadSheet | Ping,
    Field(discriminator="type"),
]
ServerMessage = Annotated[
    Welcome
    | Ack
    | Refused
    | Error
    | Events
    | Snapshot
    | Window
    | Table
    | Update
    | Log
    | WentBack
    | Choices
    | Created
    | Listing
    | Codes
    | Peeked
    | SheetRead
    | Pong,
    Field(discriminator="type"),
]
Message = (
    Hello
    | Send
    | Create
    | Renew
    | Rooms
    | Invites
    | Revoke
    | Peek
    | ReadSheet
    | Ping
    | Welcome
    | Ack
    | Refused
    | Error
    | Events
    | Snapshot
    | Window
    | Table
    | Update
    | Log
    | WentBack
    | Choices
    | Created
    | Listing
    | Codes
    | Peeked
    | SheetRead
    | Pong
)

CLIENT_MESSAGES: Final[tuple[type[_Message], ...]] = (
    Hello,
    Send,
    Create,
    Renew,
    Rooms,
    Invites,
    Revoke,
    Peek,
    ReadSheet,
    Ping,
)
SERVER_MESSAGES: Final[tuple[type[_Message], ...]] = (
    Welcome,
    Ack,
    Refused,
    Error,
    Events,
    Snapshot,
    Window,
    Table,
    Update,
    Log,
    WentBack,
    Choices,
    Created,
    Listing,
    Codes,
    Peeked,
    SheetRead,
    Pong,
)


def command(type: str, **fields: Any) -> dict[str, Any]:
    """A command for `Send.command`: `command("Attack", actor="ayla", target="g1")`."""
    return {"type": type, **fields}


def tagged(type: str, **fields: Any) -> dict[str, Any]:
    """A nested engine record, tagged as in events: `tagged("Cell", x=3, y=4)`; a command
    inside a command (`Declare.actions`, `Answer.action`) is written the same way."""
    return {"$type": type, **fields}
