"""Events as sentences, from the wire's plain data: what the terminal prints.

The server narrates engine records (`server/narration.py`); a client holds only the
plain data of the wire (docs/protocol.md, "Events") and may not import the server, so
it tells the fight from that data, in the same words: a roll reads
`d20 14 + Strength 3 + Training 2 = 19`, an attack
`Goblin (g1) attacks Ayla with scimitar: d20 6 + Strength 2 + Training 1 = 9 vs PD 15:
miss`. Names come from the client's view (`View.name_of`).

Each event type has one narrator. An event without one (newer than this file) still
prints, compactly, as its type and fields, so nothing that happens is hidden from the
screen. Redacted events read as such: another side's declaration is "declares
(hidden until revealed)".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Data = dict[str, Any]
Names = Callable[[str], str]
Narrator = Callable[[Data, Names], str]
_NARRATORS: dict[str, Narrator] = {}


def narrates(*types: str) -> Callable[[Narrator], Narrator]:
    def register(fn: Narrator) -> Narrator:
        for name in types:
            _NARRATORS[name] = fn
        return fn

    return register


def narrate(event: Data, names: Names = str) -> str:
    """The text for `event` (several lines for some); `names` turns an id into a name."""
    narrator = _NARRATORS.get(str(event.get("$type", "")))
    if narrator is None:
        return compact(event)
    try:
        return narrator(event, names)
    except (KeyError, TypeError, ValueError, AttributeError):  # a shape this file predates
        return compact(event)


# --- pieces ---------------------------------------------------------------------------


def describe_roll(roll: Any) -> str:
    """`d20 14 + Strength 3 + Training 2 = 19`; `2x(2d6 3+5) + Training 1 = 17`."""
    if not isinstance(roll, dict):
        return "no roll"
    parts: list[str] = []
    for group in roll.get("dice", []):
        faces = list(group.get("faces", []))
        sides = group.get("sides")
        name = f"d{sides}" if len(faces) == 1 else f"{len(faces)}d{sides}"
        text = f"{name} {'+'.join(str(f) for f in faces)}"
        parts.append(("- " if group.get("negative") and parts else "") + text)
    text = " + ".join(parts) if parts else "0"
    multiplier = roll.get("multiplier", 1)
    if multiplier != 1:
        text = f"{multiplier}x({text})"
    for name, value in roll.get("modifiers", []):
        text += f" {'-' if value < 0 else '+'} {name} {abs(value)}"
    return f"{text} = {roll.get('total')}"


def describe_action(action: Any, names: Names) -> str:
    """A game action as a verb phrase: `attack Ayla with scimitar`."""
    if not isinstance(action, dict):
        return "nothing"
    kind = action.get("$type") or action.get("type")
    target = names(str(action.get("target", "")))
    weapon = action.get("weapon") or "an unarmed attack"
    if kind == "Attack":
        return f"attack {target} with {weapon}"
    if kind == "AscendAttack":
        return f"ascend and attack {target} with {weapon}"
    if kind == "OpportunityAttack":
        return f"attack {target} with {weapon} (opportunity)"
    if kind == "Counter":
        return f"counter {target} with {weapon}"
    if kind == "CastSpell":
        aimed = ", ".join(names(t) for t in action.get("targets", []))
        cell = action.get("target")
        if not aimed and isinstance(cell, dict):
            aimed = _cell(cell)
        return f"cast {action.get('spell')}" + (f" at {aimed}" if aimed else "")
    if kind == "Move":
        path = action.get("path", [])
        return f"move to {_cell(path[-1])}" if path else "stay put"
    if kind == "HoldAction":
        return "hold the action"
    if kind == "UseItem":
        return f"use the {action.get('item')}"
    if kind == "SetStance":
        return f"take the {action.get('stance')} stance"
    if kind == "KnockAway":
        return f"knock the {action.get('item')} out of {target}'s hand"
    if kind == "ChangeAscension":
        return "ascend" if action.get("levels", 0) > 0 else "descend"
    if kind == "Face":
        return f"turn to face {action.get('facing')}"
    return compact(action)


def compact(value: Data) -> str:
    """Any record as `TypeName field=value, ...`: the fallback for unknown events."""
    name = value.get("$type") or value.get("type") or "?"
    fields = ", ".join(
        f"{key}={_plain(item)}" for key, item in value.items() if key not in ("$type", "type")
    )
    return f"{name} {fields}" if fields else str(name)


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        if value.get("$type") == "Roll":
            return f"({describe_roll(value)})"
        return f"({compact(value)})"
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, str):
        return value if value and " " not in value else repr(value)
    return repr(value)


def _cell(cell: Any) -> str:
    if isinstance(cell, dict):
        return f"({cell.get('x')}, {cell.get('y')})"
    if isinstance(cell, list) and len(cell) == 2:
        return f"({cell[0]}, {cell[1]})"
    return str(cell)


def _who(by: str, names: Names) -> str:
    return "the GM" if by in ("gm", "") else names(by)


def _reason(reason: Any) -> str:
    return f" ({reason})" if reason else ""


def _options(options: list[str]) -> str:
    if not options:
        return ""
    if len(options) == 1:
        return options[0]
    return ", ".join(options[:-1]) + " or " + options[-1]


# --- the round ------------------------------------------------------------------------


@narrates("InitiativeRolled")
def _initiative(event: Data, names: Names) -> str:
    lines = ["Initiative:"]
    for made in event["rolls_made"]:
        lines.append(f"  {names(made['combatant'])}: {describe_roll(made['roll'])}")
    for made in event.get("tiebreaks", []):
        lines.append(f"  tie re-roll, {names(made['combatant'])}: {describe_roll(made['roll'])}")
    order = ", ".join(f"{names(s['combatant'])} {s['initiative']}" for s in event["order"])
    lines.append(f"Turn order: {order}")
    return "\n".join(lines)


@narrates("RoundStarted")
def _round_started(event: Data, names: Names) -> str:
    return f"Round {event['round']}"


@narrates("RoundEnded")
def _round_ended(event: Data, names: Names) -> str:
    return f"End of round {event['round']}"


@narrates("TurnStarted")
def _turn_started(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])}'s turn"


@narrates("TurnEnded")
def _turn_ended(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} ends the turn"


@narrates("TurnSkipped")
def _turn_skipped(event: Data, names: Names) -> str:
    return f"The GM skips {names(event['combatant'])}'s turn"


# --- windows and declarations (V20-V24) ----------------------------------------------


@narrates("WindowOpened")
def _window_opened(event: Data, names: Names) -> str:
    window = event["window"]
    kind = window["kind"]
    about = f" to {names(window['about'])}" if window.get("about") else ""
    asks = []
    for ask in window["asked"]:
        options = _options(list(ask.get("options", [])))
        who = names(ask["combatant"])
        asks.append(f"{who} may {options or 'answer'}")  # another side's options are hidden
    seconds = window.get("seconds")
    length = f", {seconds:g}s" if isinstance(seconds, int | float) else ""
    return f"Window {window['id']} opens ({kind}{about}{length}): {'; '.join(asks) or 'nobody'}"


@narrates("WindowClosed")
def _window_closed(event: Data, names: Names) -> str:
    return f"Window {event['window']} closes{_reason(event.get('reason'))}"


@narrates("DeclarationMade")
def _declared(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    actions = event.get("actions") or []
    if not actions:
        return f"{who} declares (hidden until revealed)"
    return f"{who} declares: {', then '.join(describe_action(a, names) for a in actions)}"


@narrates("DeclarationWithdrawn")
def _withdrawn(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} withdraws a declaration"


@narrates("DeclarationsRevealed")
def _revealed(event: Data, names: Names) -> str:
    lines = ["Declarations revealed:"]
    for declaration in event["declarations"]:  # `turn` is a slot of the order: not shown
        actions = ", then ".join(describe_action(a, names) for a in declaration["actions"])
        lines.append(f"  {names(declaration['combatant'])}: {actions or 'nothing'}")
    passed = [names(p) for p in event.get("passed", [])]
    if passed:
        lines.append(f"  declared nothing: {', '.join(passed)}")
    return "\n".join(lines)


@narrates("Answered")
def _answered(event: Data, names: Names) -> str:
    action = event.get("action")
    what = f": {describe_action(action, names)}" if action else ""
    return f"{names(event['combatant'])} answers with {event['option']}{what}"


@narrates("Passed")
def _passed(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} lets window {event['window']} pass"


@narrates("Paused")
def _paused(event: Data, names: Names) -> str:
    return f"Paused by {_who(event['by'], names)}: every timer stops"


@narrates("Resumed")
def _resumed(event: Data, names: Names) -> str:
    if event.get("refused"):
        return "The GM refuses the pause: the timers go on"
    return f"Resumed by {_who(event['by'], names)}: the timers go on"


@narrates("ActionPushed")
def _pushed(event: Data, names: Names) -> str:
    pending = event["pending"]
    return f"{names(pending['actor'])} is about to {describe_action(pending['action'], names)}"


@narrates("ActionStarted")
def _started(event: Data, names: Names) -> str:
    return f"{names(event['actor'])} goes: {describe_action(event['action'], names)}"


@narrates("ActionFinished")
def _finished(event: Data, names: Names) -> str:
    return f"{names(event['actor'])} is done"


@narrates("ActionLost")
def _lost(event: Data, names: Names) -> str:
    action = describe_action(event.get("action"), names)
    return f"{names(event['actor'])} loses the action ({action}){_reason(event.get('reason'))}"


@narrates("HoldBegan")
def _hold_began(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} holds the action"


@narrates("HoldEnded")
def _hold_ended(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} stops holding{_reason(event.get('reason'))}"


# --- attacks, defences, damage --------------------------------------------------------


@narrates("AttackRolled")
def _attack(event: Data, names: Names) -> str:
    weapon = event.get("weapon") or "an unarmed attack"
    outcome = str(event["outcome"]).replace("_", " ")
    return (
        f"{names(event['attacker'])} attacks {names(event['target'])} with {weapon}: "
        f"{describe_roll(event['roll'])} vs {event['defence_name']} {event['defence']}: "
        f"{outcome}"
    )


@narrates("DefenceRolled")
def _defence(event: Data, names: Names) -> str:
    result = "succeeds" if event["success"] else "fails"
    item = f" with the {event['item']}" if event.get("item") else ""
    return (
        f"{names(event['defender'])} tries to {event['kind']}{item}: "
        f"{describe_roll(event['roll'])} vs {event['against']}: {result}"
    )


@narrates("DamageDealt")
def _damage(event: Data, names: Names) -> str:
    roll = f"{describe_roll(event['roll'])}; " if event.get("roll") else ""
    affinity = f" ({event['affinity']})" if event.get("affinity") else ""
    return (
        f"{names(event['target'])} takes {roll}{event['amount']} damage vs "
        f"{event['resistance_name']} {event['resistance']}: {event['to_health']} to health, "
        f"{event['to_armour']} to armour{affinity}"
    )


@narrates("DamageBlocked")
def _blocked(event: Data, names: Names) -> str:
    return f"{names(event['defender'])} blocks with the {event['item']}"


@narrates("SpellAttackRolled")
def _spell_attack(event: Data, names: Names) -> str:
    against = ", ".join(
        f"{names(r['target'])} {event['defence_name']} {r['defence']} "
        f"{str(r['outcome']).replace('_', ' ')}"
        for r in event.get("results", [])
    )
    return (
        f"{names(event['caster'])} casts {event['spell']}: "
        f"{describe_roll(event['roll'])} vs {against or 'nobody'}"
    )


@narrates("SpellCast")
def _spell_cast(event: Data, names: Names) -> str:
    return f"{names(event['caster'])} casts {event['spell']} for {event['mc']} MC"


@narrates("Moved")
def _moved(event: Data, names: Names) -> str:
    path = event.get("path") or []
    where = f" to {_cell(path[-1])}" if path else ""
    return f"{names(event['combatant'])} moves {event['distance_ft']} ft{where}"


# --- conditions and GM overrides ------------------------------------------------------


@narrates("ConditionGained")
def _condition_gained(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    if event["condition"] == "Dead":
        return f"{who} dies{_reason(event.get('reason'))}"
    rounds = event.get("rounds")
    unit = "turn" if event.get("per_turn") else "round"
    lasting = f" for {rounds} {unit}{'' if rounds == 1 else 's'}" if rounds is not None else ""
    return f"{who} gains {event['condition']}{lasting}{_reason(event.get('reason'))}"


@narrates("ConditionLost")
def _condition_lost(event: Data, names: Names) -> str:
    return (
        f"{names(event['combatant'])} is no longer {event['condition']}"
        f"{_reason(event.get('reason'))}"
    )


@narrates("HealthSet")
def _health_set(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    if "health" in event:
        return f"The GM sets {who}'s health to {event['health']} (was {event.get('previous')})"
    return f"The GM changes {who}'s health: now {event.get('health_state', 'changed')}"


@narrates("Rewound")
def _rewound(event: Data, names: Names) -> str:
    return f"The GM rewinds the fight to after event {event['to_version']}"
