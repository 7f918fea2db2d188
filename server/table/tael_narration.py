"""World of Tael's own events and actions as sentences (T1-T10).

A hit check reads `Kaelen attacks Bandit with longsword: d20 5 + Martial Combat 4 = 9
vs DV 12: miss` (T3). Another side's preparation reads "announces a prepared move
(hidden until it triggers)" (T2), and the numbers a side may not see (hit points, a
Willpower DC) are left out: they are not on the wire. Another side's roll reads by its
faces (`d20 14 (modifiers hidden) vs DV (hidden): hit`) or as `a hidden roll`, as the
room's `roll_visibility` shows it (R77). Answering a reaction window uses
(and so reveals) the prepared move (T2). The events the rule systems share (turns,
windows, pauses) are told in `narration.py`.
"""

from __future__ import annotations

from typing import Any

from server.table.telling import (
    ActionTeller,
    Data,
    Narrators,
    Story,
    Telling,
    cell,
    describe_roll,
    moved_to,
    reason,
)

NARRATORS = Narrators()
tells = NARRATORS.tells


def _answering(option: str) -> str:
    """T2: every option a Tael window offers is a prepared move, named by its sheet."""
    return "uses the prepared move"


# --- game actions (the ones a reaction window can be about, and strikes) --------------


def _in_hand(action: Data) -> str:
    return str(action.get("weapon") or "the weapon in hand")


def _target(action: Data, story: Story) -> str:
    return story.names(str(action.get("target", "")))


def _attack(action: Data, story: Story) -> str:
    hand = " (off hand)" if action.get("off_hand") else ""  # T5
    return f"attack {_target(action, story)} with {_in_hand(action)}{hand}"


def _strike_back(action: Data, story: Story) -> str:
    return f"strike back at {_target(action, story)} with {_in_hand(action)}"


def _spell(action: Data, story: Story) -> str:
    aimed = ", ".join(story.names(str(t)) for t in action.get("targets", []))
    return f"cast {action.get('spell')} at {aimed or 'nobody'}"


ACTIONS: dict[str, ActionTeller] = {
    "AttackAction": _attack,
    "PreparedStrike": _strike_back,
    "SpellAction": _spell,
    "Punch": lambda action, story: f"punch {_target(action, story)}",
    "MoveTiles": lambda action, story: moved_to(action),
}


# --- pieces ---------------------------------------------------------------------------


def _dv(parts: Any, value: Any) -> str:
    """`DV 15 (Armour 13 + Dodging 3 - Dodge penalty 1)`; `DV 12` when armour alone;
    `DV (hidden)` when it is another side's number (R77)."""
    if value is None:
        return "DV (hidden)"
    named = [(str(n), int(v)) for n, v in parts] if isinstance(parts, list) else []
    if len(named) <= 1:
        return f"DV {value}"
    text = f"{named[0][0]} {named[0][1]}"
    for name, amount in named[1:]:
        text += f" {'-' if amount < 0 else '+'} {name} {abs(amount)}"
    return f"DV {value} ({text})"


def _hit(hit: Any) -> str:
    return "hit" if hit else "miss"


# --- hit checks and damage (T3-T5) ----------------------------------------------------


@tells("HitChecked")
def _hit_checked(event: Data, story: Story) -> str:
    attacker, target = story.names(event["attacker"]), story.names(event["target"])
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
    dv = _dv(event.get("defence"), event.get("defensive_value"))
    return f"{text} vs {dv}: {_hit(event['hit'])}"


@tells("SpellHitChecked")
def _spell_hit_checked(event: Data, story: Story) -> str:
    against = ", ".join(
        f"{story.names(t['target'])} {_dv(t.get('defence'), t.get('defensive_value'))} "
        f"{_hit(t['hit'])}"
        for t in event.get("targets", [])
    )
    return (
        f"{story.names(event['caster'])} casts {event['spell']}: "
        f"{describe_roll(event['roll'])} vs {against or 'nobody'}"
    )


@tells("DamageRolled")
def _damage_rolled(event: Data, story: Story) -> str:
    return f"{event['source']} damage: {describe_roll(event['roll'])}"


@tells("DamageTaken")
def _damage_taken(event: Data, story: Story) -> str:
    who = story.names(event["target"])
    if "taken" not in event:  # neither side's own: the damage is not shown (R77)
        text = f"{who} takes damage" + (" (braced)" if event.get("braced") else "")
        return f"{text}: now {event.get('health_state', 'hurt')}"
    damage, taken = event["damage"], event["taken"]
    text = f"{who} takes {taken} damage"
    if event.get("braced"):
        text = f"{who} takes {taken} of {damage} damage (braced)"
    if "hit_points" in event:
        left = event["hit_points"]
        return f"{text}: {left} hit point{'' if left == 1 else 's'} left"
    return f"{text}: now {event.get('health_state', 'hurt')}"  # another side's numbers


@tells("DamagePrevented")
def _damage_prevented(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['preparer'])}'s {event['move']} keeps "
        f"{story.names(event['attacker'])}'s damage off {story.names(event['target'])}"
    )


# --- fainting and death (T8) ----------------------------------------------------------


@tells("Fainted")
def _fainted(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} faints"


@tells("WillpowerChecked")
def _willpower(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
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


@tells("WillpowerDcRaised")
def _willpower_dc(event: Data, story: Story) -> str:
    now = f" to {event['dc']}" if "dc" in event else ""
    return f"{story.names(event['combatant'])}'s Willpower DC rises by {event['by']}{now}"


@tells("Died")
def _died(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} dies{reason(event.get('reason'))}"


@tells("HelpedUp")
def _helped_up(event: Data, story: Story) -> str:
    return f"{story.names(event['helper'])} helps {story.names(event['target'])} up: 1 hit point"


@tells("TurnLost")
def _turn_lost(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} loses the turn{reason(event.get('reason'))}"


# --- the turn: preparations, stances, movement, generic actions (T2, T7, T9) ----------


@tells("PreparationAnnounced")
def _prepared(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    if not event.get("move"):  # T2: hidden from other sides until it triggers
        return f"{who} announces a prepared move (hidden until it triggers)"
    return f"{who} prepares {event['move']}"


@tells("StanceChosen")
def _stance(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} takes the {event['stance']} stance"


@tells("TilesMoved")
def _tiles_moved(event: Data, story: Story) -> str:
    path = event.get("path") or []
    where = f" to {cell(path[-1])}" if path else ""
    tiles = event["tiles"]
    return f"{story.names(event['combatant'])} moves {tiles} tile{'' if tiles == 1 else 's'}{where}"


@tells("Dashed")
def _dashed(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    if event["factor"] >= 4:
        return f"{who} sprints: movement x4 this turn, none the next"
    return f"{who} dashes: movement x{event['factor']} this turn"


@tells("Braced")
def _braced(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} braces: damage halved until the next turn"


@tells("HideAttempted")
def _hide(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['combatant'])} tries to hide: {describe_roll(event['roll'])} "
        "(for the GM to judge)"
    )


@tells("SkillChecked")
def _skill(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['combatant'])} checks {event['skill']}: "
        f"{describe_roll(event['roll'])} (for the GM to judge)"
    )


@tells("Surrendered")
def _surrendered(event: Data, story: Story) -> str:
    dropped = ", ".join(event.get("dropped", []))
    drops = f" and drops {dropped}" if dropped else ""
    return f"{story.names(event['combatant'])} surrenders{drops}"


@tells("PickedUp")
def _picked_up(event: Data, story: Story) -> str:
    held = " and holds it" if event.get("equipped") else ""
    return f"{story.names(event['combatant'])} picks up {event['weapon']}{held}"


@tells("WeaponsEquipped")
def _equipped(event: Data, story: Story) -> str:
    hands = [h for h in (event.get("main_hand"), event.get("off_hand")) if h]
    who = story.names(event["combatant"])
    return f"{who} holds {' and '.join(hands)}" if hands else f"{who} empties both hands"


# --- statuses (T6) and GM overrides (the end, T10, is told in `narration.py`) ----------


@tells("ResistChecked")
def _resist(event: Data, story: Story) -> str:
    result = "resists" if event["resisted"] else "fails"
    dc = "DC (hidden)"  # the caster's numbers, another side's (R77)
    if "dc" in event:
        dc = f"DC {event['dc']} ({event['base_dc']} + Magic {event['caster_magic']})"
    return (
        f"{story.names(event['target'])} resists {event['status']}: "
        f"{describe_roll(event['roll'])} vs {dc}: {result}"
    )


@tells("StatusGained")
def _status_gained(event: Data, story: Story) -> str:
    status = event["status"]
    turns = status.get("turns", 0)
    lasting = f"{turns} turn{'' if turns == 1 else 's'}"
    text = f"{story.names(event['target'])} is {status['name']} for {lasting}"
    effects = []
    if status.get("damage"):
        effects.append(f"{status['damage']} damage as each starts")
    if status.get("skips_turn"):
        effects.append("loses them")
    text += f" ({'; '.join(effects)})" if effects else ""
    return text + (" (the GM's ruling)" if status.get("source") == "gm" else "")


@tells("StatusEnded")
def _status_ended(event: Data, story: Story) -> str:
    return f"{story.names(event['target'])} is no longer {event['status']}"


@tells("HitPointsSet")
def _hit_points_set(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    up = f", and {who} stands up" if event.get("stood_up") else ""
    if "hit_points" in event:
        now, was = event["hit_points"], event.get("previous")
        return f"The GM sets {who}'s hit points to {now} (was {was}){up}"
    return f"The GM changes {who}'s hit points: now {event.get('health_state', 'changed')}{up}"


TAEL_TELLING = Telling(events=NARRATORS, actions=ACTIONS, answering=_answering)
"""Tael's narration, as `narration.TELLINGS` holds it."""
