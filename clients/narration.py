"""Events as sentences, from the wire's plain data: what the terminal prints.

The server narrates engine records (`server/narration.py`); a client holds only the
plain data of the wire (docs/protocol.md, "Events") and may not import the server, so
it tells the fight from that data, in the same words: a roll reads
`d20 14 + Strength 3 + Training 2 = 19`, an attack
`Goblin (g1) attacks Ayla with scimitar: d20 6 + Strength 2 + Training 1 = 9 vs PD 15:
miss`. Names come from the client's view (`View.name_of`).

Each event type has one narrator, whichever rule system sent it (Verse's, World of
Tael's, the ones they share); record names are unique across rule systems. An event
without one (newer than this file) still prints, compactly, as its type and fields, so
nothing that happens is hidden from the screen. Redacted events read as such: another
side's declaration is "declares (hidden until revealed)", another side's Tael
preparation "announces a prepared move (hidden until it triggers)", and numbers a side
may not see (hit points, a Willpower DC) are left out.
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


def narrated() -> frozenset[str]:
    """The event types with a narrator of their own (any other prints compactly)."""
    return frozenset(_NARRATORS)


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
    return _tael_action(kind, action, names)


def _tael_action(kind: Any, action: Data, names: Names) -> str:
    """World of Tael's actions (the ones a reaction window can be about, and strikes)."""
    target = names(str(action.get("target", "")))
    if kind == "AttackAction":
        hand = " (off hand)" if action.get("off_hand") else ""
        return f"attack {target} with {action.get('weapon') or 'the weapon in hand'}{hand}"
    if kind == "PreparedStrike":
        return f"strike back at {target} with {action.get('weapon') or 'the weapon in hand'}"
    if kind == "SpellAction":
        aimed = ", ".join(names(str(t)) for t in action.get("targets", []))
        return f"cast {action.get('spell')} at {aimed or 'nobody'}"
    if kind == "Punch":
        return f"punch {target}"
    if kind == "MoveTiles":
        path = action.get("path", [])
        return f"move to {_cell(path[-1])}" if path else "stay put"
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


VERSE_ANSWERS = frozenset(
    {"declare", "dodge", "block", "hold", "holder_dodge", "quick_response", "opportunity"}
    | {"counter", "adapt"}
)
"""Verse's window options (docs/protocol.md, `window`); any other is a Tael prepared move."""


@narrates("Answered")
def _answered(event: Data, names: Names) -> str:
    action = event.get("action")
    what = f": {describe_action(action, names)}" if action else ""
    who, option = names(event["combatant"]), event["option"]
    if option not in VERSE_ANSWERS:  # T2: answering uses (and so reveals) the move
        return f"{who} uses the prepared move {option}{what}"
    return f"{who} answers with {option}{what}"


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


# --- World of Tael (T1-T10) -----------------------------------------------------------


def _dv(parts: Any, value: Any) -> str:
    """`DV 15 (Armour 13 + Dodging 3 - Dodge penalty 1)`; `DV 12` when armour alone."""
    named = [(str(n), int(v)) for n, v in parts] if isinstance(parts, list) else []
    if len(named) <= 1:
        return f"DV {value}"
    text = f"{named[0][0]} {named[0][1]}"
    for name, amount in named[1:]:
        text += f" {'-' if amount < 0 else '+'} {name} {abs(amount)}"
    return f"DV {value} ({text})"


def _hit(hit: Any) -> str:
    return "hit" if hit else "miss"


@narrates("HitChecked")
def _hit_checked(event: Data, names: Names) -> str:
    attacker, target = names(event["attacker"]), names(event["target"])
    weapon = event.get("weapon") or ""
    kind = event["kind"]
    if kind == "punch":
        what = f"{attacker} punches {target}" + (f" with {weapon}" if weapon else "")
    elif kind == "prepared":
        what = f"{attacker} strikes back at {target} with {weapon}"
    elif kind == "off_hand":
        what = f"{attacker} attacks {target} with {weapon} (off hand)"
    else:
        what = f"{attacker} attacks {target} with {weapon}"
    roll = event.get("roll")
    if roll is None:  # T9: a Punch after a hit hits by itself
        return f"{what}: hits by itself, as the Punch before it hit"
    text = f"{what}: {describe_roll(roll)}"
    other = event.get("other")
    if other is not None:  # T3: beyond normal range, the worse of two
        text += f" (beyond range: the worse of it and {describe_roll(other)})"
    if event.get("hindered"):
        text += " (no Precision: an enemy in melee range)"
    dv = _dv(event.get("defence"), event["defensive_value"])
    return f"{text} vs {dv}: {_hit(event['hit'])}"


@narrates("SpellHitChecked")
def _spell_hit_checked(event: Data, names: Names) -> str:
    against = ", ".join(
        f"{names(t['target'])} {_dv(t.get('defence'), t['defensive_value'])} {_hit(t['hit'])}"
        for t in event.get("targets", [])
    )
    return (
        f"{names(event['caster'])} casts {event['spell']}: {describe_roll(event['roll'])} "
        f"vs {against or 'nobody'}"
    )


@narrates("DamageRolled")
def _damage_rolled(event: Data, names: Names) -> str:
    return f"{event['source']} damage: {describe_roll(event['roll'])}"


@narrates("DamageTaken")
def _damage_taken(event: Data, names: Names) -> str:
    who = names(event["target"])
    damage, taken = event["damage"], event["taken"]
    text = f"{who} takes {taken} damage"
    if event.get("braced"):
        text = f"{who} takes {taken} of {damage} damage (braced)"
    if "hit_points" in event:
        left = event["hit_points"]
        return f"{text}: {left} hit point{'' if left == 1 else 's'} left"
    return f"{text}: now {event.get('health_state', 'hurt')}"  # another side's numbers


@narrates("DamagePrevented")
def _damage_prevented(event: Data, names: Names) -> str:
    return (
        f"{names(event['preparer'])}'s {event['move']} keeps {names(event['attacker'])}'s "
        f"damage off {names(event['target'])}"
    )


@narrates("Fainted")
def _fainted(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} faints"


@narrates("WillpowerChecked")
def _willpower(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    if event.get("stood_up"):
        result = "stands up with 1 hit point"
    else:
        result = "succeeds" if event["success"] else "fails"
    failures = event.get("failures", 0)
    row = f" ({failures} failed in a row)" if failures else ""
    if "roll" not in event:  # another side sees the outcome, not the roll nor the DC
        return f"{who} checks Willpower: {result}{row}"
    roll = describe_roll(event["roll"])
    return f"{who} checks Willpower: {roll} vs DC {event['dc']}: {result}{row}"


@narrates("WillpowerDcRaised")
def _willpower_dc(event: Data, names: Names) -> str:
    now = f" to {event['dc']}" if "dc" in event else ""
    return f"{names(event['combatant'])}'s Willpower DC rises by {event['by']}{now}"


@narrates("Died")
def _died(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} dies{_reason(event.get('reason'))}"


@narrates("HelpedUp")
def _helped_up(event: Data, names: Names) -> str:
    return f"{names(event['helper'])} helps {names(event['target'])} up: 1 hit point"


@narrates("TurnLost")
def _turn_lost(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} loses the turn{_reason(event.get('reason'))}"


@narrates("PreparationAnnounced")
def _prepared(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    if not event.get("move"):  # T2: hidden from other sides until it triggers
        return f"{who} announces a prepared move (hidden until it triggers)"
    return f"{who} prepares {event['move']}"


@narrates("StanceChosen")
def _stance(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} takes the {event['stance']} stance"


@narrates("TilesMoved")
def _tiles_moved(event: Data, names: Names) -> str:
    path = event.get("path") or []
    where = f" to {_cell(path[-1])}" if path else ""
    tiles = event["tiles"]
    return f"{names(event['combatant'])} moves {tiles} tile{'' if tiles == 1 else 's'}{where}"


@narrates("Dashed")
def _dashed(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    if event["factor"] >= 4:
        return f"{who} sprints: movement x4 this turn, none the next"
    return f"{who} dashes: movement x{event['factor']} this turn"


@narrates("Braced")
def _braced(event: Data, names: Names) -> str:
    return f"{names(event['combatant'])} braces: damage halved until the next turn"


@narrates("HideAttempted")
def _hide(event: Data, names: Names) -> str:
    return (
        f"{names(event['combatant'])} tries to hide: {describe_roll(event['roll'])} "
        "(for the GM to judge)"
    )


@narrates("SkillChecked")
def _skill(event: Data, names: Names) -> str:
    return (
        f"{names(event['combatant'])} checks {event['skill']}: "
        f"{describe_roll(event['roll'])} (for the GM to judge)"
    )


@narrates("Surrendered")
def _surrendered(event: Data, names: Names) -> str:
    dropped = ", ".join(event.get("dropped", []))
    drops = f" and drops {dropped}" if dropped else ""
    return f"{names(event['combatant'])} surrenders{drops}"


@narrates("PickedUp")
def _picked_up(event: Data, names: Names) -> str:
    held = " and holds it" if event.get("equipped") else ""
    return f"{names(event['combatant'])} picks up {event['weapon']}{held}"


@narrates("WeaponsEquipped")
def _equipped(event: Data, names: Names) -> str:
    hands = [h for h in (event.get("main_hand"), event.get("off_hand")) if h]
    who = names(event["combatant"])
    return f"{who} holds {' and '.join(hands)}" if hands else f"{who} empties both hands"


@narrates("ResistChecked")
def _resist(event: Data, names: Names) -> str:
    result = "resists" if event["resisted"] else "fails"
    return (
        f"{names(event['target'])} resists {event['status']}: {describe_roll(event['roll'])} "
        f"vs DC {event['dc']} ({event['base_dc']} + Magic {event['caster_magic']}): {result}"
    )


@narrates("StatusGained")
def _status_gained(event: Data, names: Names) -> str:
    status = event["status"]
    turns = status.get("turns", 0)
    lasting = f"{turns} turn{'' if turns == 1 else 's'}"
    text = f"{names(event['target'])} is {status['name']} for {lasting}"
    effects = []
    if status.get("damage"):
        effects.append(f"{status['damage']} damage as each starts")
    if status.get("skips_turn"):
        effects.append("loses them")
    return text + (f" ({'; '.join(effects)})" if effects else "")


@narrates("StatusEnded")
def _status_ended(event: Data, names: Names) -> str:
    return f"{names(event['target'])} is no longer {event['status']}"


@narrates("HitPointsSet")
def _hit_points_set(event: Data, names: Names) -> str:
    who = names(event["combatant"])
    up = " and stands up" if event.get("stood_up") else ""
    if "hit_points" in event:
        now, was = event["hit_points"], event.get("previous")
        return f"The GM sets {who}'s hit points to {now} (was {was}){up}"
    return f"The GM changes {who}'s hit points: now {event.get('health_state', 'changed')}{up}"


@narrates("CombatEnded")
def _combat_ended(event: Data, names: Names) -> str:
    defeated = ", ".join(event.get("defeated", [])) or "nobody"
    fallen = ", ".join(event.get("fallen", []))
    return f"The GM ends the fight: out of it: {defeated}" + (f"; fell: {fallen}" if fallen else "")
