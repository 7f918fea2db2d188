"""Verse Chronicles' own events and actions as sentences, in the server's words.

An attack reads `Goblin (g1) attacks Ayla with scimitar: d20 6 + Strength 2 + Training
1 = 9 vs PD 15: miss`, as `server/narration.py` tells it. Another side's declaration
reads "declares (hidden until revealed)" until the window closes (V20), and another
side's health as its coarse state: the numbers a side may not see are not on the wire.
The events the rule systems share (turns, windows, pauses) are told in `narration.py`.
"""

from __future__ import annotations

from clients.telling import (
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

VERSE_ANSWERS = frozenset(
    {"declare", "dodge", "block", "hold", "holder_dodge", "quick_response", "opportunity"}
    | {"counter", "adapt"}
)
"""Verse's window options (docs/protocol.md, `window`; V22, V23)."""


def _answering(option: str) -> str | None:
    return "answers with" if option in VERSE_ANSWERS else None


# --- game actions (docs/protocol.md, "Game actions") ----------------------------------


def _weapon(action: Data) -> str:
    return str(action.get("weapon") or "an unarmed attack")


def _target(action: Data, story: Story) -> str:
    return story.names(str(action.get("target", "")))


def _attack(action: Data, story: Story) -> str:
    return f"attack {_target(action, story)} with {_weapon(action)}"


def _ascend_attack(action: Data, story: Story) -> str:
    return f"ascend and attack {_target(action, story)} with {_weapon(action)}"


def _opportunity(action: Data, story: Story) -> str:
    return f"attack {_target(action, story)} with {_weapon(action)} (opportunity)"


def _counter(action: Data, story: Story) -> str:
    return f"counter {_target(action, story)} with {_weapon(action)}"


def _cast(action: Data, story: Story) -> str:
    aimed = ", ".join(story.names(t) for t in action.get("targets", []))
    where = action.get("target")
    if not aimed and isinstance(where, dict):
        aimed = cell(where)
    return f"cast {action.get('spell')}" + (f" at {aimed}" if aimed else "")


def _knock(action: Data, story: Story) -> str:
    return f"knock the {action.get('item')} out of {_target(action, story)}'s hand"


ACTIONS: dict[str, ActionTeller] = {
    "Attack": _attack,
    "AscendAttack": _ascend_attack,
    "OpportunityAttack": _opportunity,
    "Counter": _counter,
    "CastSpell": _cast,
    "Move": lambda action, story: moved_to(action),
    "HoldAction": lambda action, story: "hold the action",
    "UseItem": lambda action, story: f"use the {action.get('item')}",
    "SetStance": lambda action, story: f"take the {action.get('stance')} stance",
    "KnockAway": _knock,
    "ChangeAscension": lambda action, story: "ascend" if action.get("levels", 0) > 0 else "descend",
    "Face": lambda action, story: f"turn to face {action.get('facing')}",
}


# --- the round: turns skipped, declarations (V20, V21) --------------------------------


@tells("TurnSkipped")
def _turn_skipped(event: Data, story: Story) -> str:
    return f"The GM skips {story.names(event['combatant'])}'s turn"


@tells("DeclarationMade")
def _declared(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    actions = event.get("actions") or []
    if not actions:
        return f"{who} declares (hidden until revealed)"
    return f"{who} declares: {', then '.join(story.action(a) for a in actions)}"


@tells("DeclarationWithdrawn")
def _withdrawn(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} withdraws a declaration"


@tells("DeclarationsRevealed")
def _revealed(event: Data, story: Story) -> str:
    lines = ["Declarations revealed:"]
    for declaration in event["declarations"]:  # `turn` is a slot of the order: not shown
        actions = ", then ".join(story.action(a) for a in declaration["actions"])
        lines.append(f"  {story.names(declaration['combatant'])}: {actions or 'nothing'}")
    passed = [story.names(p) for p in event.get("passed", [])]
    if passed:
        lines.append(f"  declared nothing: {', '.join(passed)}")
    return "\n".join(lines)


@tells("HoldBegan")
def _hold_began(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} holds the action"


@tells("HoldEnded")
def _hold_ended(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} stops holding{reason(event.get('reason'))}"


# --- attacks, defences, damage --------------------------------------------------------


@tells("AttackRolled")
def _attack_rolled(event: Data, story: Story) -> str:
    weapon = event.get("weapon") or "an unarmed attack"
    outcome = str(event["outcome"]).replace("_", " ")
    return (
        f"{story.names(event['attacker'])} attacks {story.names(event['target'])} with "
        f"{weapon}: {describe_roll(event['roll'])} vs {event['defence_name']} "
        f"{event['defence']}: {outcome}"
    )


@tells("DefenceRolled")
def _defence(event: Data, story: Story) -> str:
    result = "succeeds" if event["success"] else "fails"
    item = f" with the {event['item']}" if event.get("item") else ""
    return (
        f"{story.names(event['defender'])} tries to {event['kind']}{item}: "
        f"{describe_roll(event['roll'])} vs {event['against']}: {result}"
    )


@tells("DamageDealt")
def _damage(event: Data, story: Story) -> str:
    roll = f"{describe_roll(event['roll'])}; " if event.get("roll") else ""
    affinity = f" ({event['affinity']})" if event.get("affinity") else ""
    return (
        f"{story.names(event['target'])} takes {roll}{event['amount']} damage vs "
        f"{event['resistance_name']} {event['resistance']}: {event['to_health']} to health, "
        f"{event['to_armour']} to armour{affinity}"
    )


@tells("DamageBlocked")
def _blocked(event: Data, story: Story) -> str:
    return f"{story.names(event['defender'])} blocks with the {event['item']}"


@tells("SpellAttackRolled")
def _spell_attack(event: Data, story: Story) -> str:
    against = ", ".join(
        f"{story.names(r['target'])} {event['defence_name']} {r['defence']} "
        f"{str(r['outcome']).replace('_', ' ')}"
        for r in event.get("results", [])
    )
    return (
        f"{story.names(event['caster'])} casts {event['spell']}: "
        f"{describe_roll(event['roll'])} vs {against or 'nobody'}"
    )


@tells("SpellCast")
def _spell_cast(event: Data, story: Story) -> str:
    return f"{story.names(event['caster'])} casts {event['spell']} for {event['mc']} MC"


@tells("Moved")
def _moved(event: Data, story: Story) -> str:
    path = event.get("path") or []
    where = f" to {cell(path[-1])}" if path else ""
    return f"{story.names(event['combatant'])} moves {event['distance_ft']} ft{where}"


# --- conditions and GM overrides ------------------------------------------------------


@tells("ConditionGained")
def _condition_gained(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    if event["condition"] == "Dead":
        return f"{who} dies{reason(event.get('reason'))}"
    rounds = event.get("rounds")
    unit = "turn" if event.get("per_turn") else "round"
    lasting = f" for {rounds} {unit}{'' if rounds == 1 else 's'}" if rounds is not None else ""
    return f"{who} gains {event['condition']}{lasting}{reason(event.get('reason'))}"


@tells("ConditionLost")
def _condition_lost(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['combatant'])} is no longer {event['condition']}"
        f"{reason(event.get('reason'))}"
    )


@tells("HealthSet")
def _health_set(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    if "health" in event:
        return f"The GM sets {who}'s health to {event['health']} (was {event.get('previous')})"
    return f"The GM changes {who}'s health: now {event.get('health_state', 'changed')}"


VERSE_TELLING = Telling(events=NARRATORS, actions=ACTIONS, answering=_answering)
"""Verse's narration, as the ruleset table (`rulesets.py`) holds it."""
