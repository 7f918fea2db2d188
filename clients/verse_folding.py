"""Folding Verse Chronicles events into the view (`folding.py` says how and why).

Each fold mirrors the engine's applier of its event (`server/engine/rulesets/verse/`,
the `@VERSE.applies` functions) for what the table looks at. Kept current of a
combatant: `health`, `mana`, `armour_durability` and the current `abilities` (for its
own side, which sees numbers), `health_state` (for another side, which sees only
that), `conditions`, `position`, `ascension`, `facing`, `mounted_on`, `stance`,
`awareness`, `holding`, `broken`, `dropped`, `items_used` and `charging` (a spell
being charged, V12); of the round: the
declarations (V20) and the settings.

Another side's health: `DamageDealt` says how much health a foe lost, not what is left,
so a foe's coarse health after a hit is known only when it cannot have changed band
(a bloodied foe stays bloodied until 0, which brings `Dead`, damage.py) or when an
event states it (another side's `HealthSet`, `DamageDealt` and `ItemUsed` carry
`health_state`; a `Dead` gained at "health 0" means down). Otherwise the fold guesses
"wounded" and doubts it.
"""

from __future__ import annotations

from typing import Any

from clients.folding import (
    Data,
    Doubts,
    Fold,
    Folding,
    cannot_fold,
    changing,
    copying,
    each_combatant,
    health_state_from,
    named,
)

DEAD = "Dead"
INCAPACITATING = ("Dead", "Unconscious", "Stunned", "Knocked Out")  # cannot act
DIED_OF_DAMAGE = "health 0"  # the reason damage.py gives a Dead gained at 0 health
UNHURT, WOUNDED, BLOODIED, DOWN = "unhurt", "wounded", "bloodied", "down"


# --- health, armour, mana (V7, V10; the GM's overrides) -------------------------------------


def _damage(state: Data, event: Data, doubts: Doubts) -> None:
    """V7: `to_health` off health (not below 0), `to_armour` off armour durability."""
    found = named(state, event, "target")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    to_health = int(event.get("to_health", 0))
    if "health" in c:
        c["health"] = max(0, int(c["health"]) - to_health)
    if isinstance(c.get("armour_durability"), int):
        c["armour_durability"] = max(0, c["armour_durability"] - int(event.get("to_armour", 0)))
    if "health_state" in c and not health_state_from(c, event, who, doubts) and to_health > 0:
        _hurt(who, c, doubts)


def _hurt(who: str, c: Data, doubts: Doubts) -> None:
    """Another side's coarse health after losing some health, as far as it is known."""
    before = c.get("health_state")
    dead = has_condition(c, DEAD)
    if before == DOWN or (before == BLOODIED and not dead):
        return  # health only went down; reaching 0 brings Dead (damage.py), folded then
    c["health_state"] = BLOODIED if before == BLOODIED else WOUNDED
    doubts.doubt(who, "health_state")


def _health_set(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM set health: the number for its own side, `health_state` for another."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    if "health" in event and "health" in c:
        c["health"] = event["health"]
    health_state_from(c, event, who, doubts)


def _item_used(state: Data, event: Data, doubts: Doubts) -> None:
    """A potion or other item: used up, and what it healed added to health."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    c["items_used"] = [*c.get("items_used", []), event.get("item")]
    healed = int(event.get("healed", 0))
    if "health" in c:
        c["health"] = int(c["health"]) + healed
    elif health_state_from(c, event, who, doubts):
        return  # another side's coarse health after it, as the event says
    elif healed > 0 and c.get("health_state") != UNHURT:
        doubts.doubt(who, "health_state")  # better by how much is not said


def _spell_cast(state: Data, event: Data, doubts: Doubts) -> None:
    """V10, V12: each share of the spell's MC paid from a Mana Pool leaves it; a spell
    that takes more than one action is being charged from now, its first action spent
    (the engine's `apply_spell_cast`)."""
    for share in event.get("shares", []):
        if not isinstance(share, dict) or not share.get("from_mp"):
            continue
        c = changing(state, str(share.get("combatant")))
        if c is not None and isinstance(c.get("mana"), int):
            c["mana"] = c["mana"] - int(share["from_mp"])
    found = named(state, event, "caster")
    if found is None:
        return cannot_fold(doubts, event)
    _, c = found
    c["charging"] = None
    if int(event.get("cast_time", 1)) > 1:
        charge: Data = {
            "$type": "Charge",
            "spell": event.get("spell"),
            "actions_needed": event.get("cast_time"),
            "actions_done": 1,
            "targets": list(event.get("targets", [])),
            "target": event.get("target"),
            "charged_in": state.get("round"),
        }
        if "health" in c:  # its own side sees the charge whole (views.py: HIDDEN_CHARGE)
            charge.update(
                mc=event.get("mc"),
                spell_dice=event.get("spell_dice"),
                options=event.get("options", []),
            )
        c["charging"] = charge


def _spell_charged(state: Data, event: Data, doubts: Doubts) -> None:
    """V12: one more action on the spell; with the last the charge is done (it goes
    off) (the engine's `apply_spell_charged`)."""
    found = named(state, event, "caster")
    if found is None:
        return cannot_fold(doubts, event)
    _, c = found
    charge = c.get("charging")
    done, needed = event.get("actions_done", 0), event.get("actions_needed", 0)
    if isinstance(charge, dict) and done < needed:
        c["charging"] = {**charge, "actions_done": done, "charged_in": state.get("round")}
    else:
        c["charging"] = None


def _charge_lost(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event, "caster")
    if found is None:
        return cannot_fold(doubts, event)
    found[1]["charging"] = None


def _ability(state: Data, event: Data, doubts: Doubts) -> None:
    """V10: ability damage (Constitution paid for a spell) or the GM's new score."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    _, c = found
    abilities = c.get("abilities")
    name = str(event.get("ability"))
    if not isinstance(abilities, dict) or name not in abilities:
        return  # another side's abilities are not shown
    if "score" in event:
        value = event["score"]
    else:
        value = int(abilities[name]) - int(event.get("amount", 0))
    c["abilities"] = {**abilities, name: value}


# --- conditions and items (V6, LIVE_COMBAT step 8) ------------------------------------------


def has_condition(c: Data, condition: str) -> bool:
    """Does the combatant, as the view holds it, have `condition`?"""
    return any(isinstance(k, dict) and k.get("name") == condition for k in c.get("conditions", []))


def _condition_gained(state: Data, event: Data, doubts: Doubts) -> None:
    """A condition replaces one of the same name; a Dead gained at 0 health is "down".
    Laid without a duration, it lasts what its entry in the conditions table says, if
    it says (V27: `rounds`, or `turns` of its bearer's)."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    name = event.get("condition")
    kept = [k for k in c.get("conditions", []) if not (isinstance(k, dict) and k["name"] == name)]
    rounds, per_turn = event.get("rounds"), bool(event.get("per_turn", False))
    rule = _rule_named(state, str(name))
    if rounds is None and rule is not None and (rule.get("rounds") or rule.get("turns")):
        rounds, per_turn = (rule["turns"], True) if rule.get("turns") else (rule["rounds"], False)
    gained = {"$type": "Condition", "name": name, "rounds": rounds, "per_turn": per_turn}
    c["conditions"] = [*kept, gained]
    if name == DEAD and event.get("reason") == DIED_OF_DAMAGE and "health_state" in c:
        c["health_state"] = DOWN
        doubts.settle(who, "health_state")


def _rule_named(state: Data, name: str) -> Data | None:
    """The conditions table's entry for `name`, whatever its case (V27)."""
    for rule in state.get("condition_rules", []):
        if isinstance(rule, dict) and str(rule.get("name", "")).casefold() == name.casefold():
            return rule
    return None


def _condition_lost(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    _, c = found
    name = event.get("condition")
    c["conditions"] = [
        k for k in c.get("conditions", []) if not (isinstance(k, dict) and k.get("name") == name)
    ]


def _ticked(c: Data, per_turn: bool) -> None:
    """Conditions after a round's end (`per_turn` False) or the owner's turn end: one
    step less, gone when it runs out, lasting ones (`rounds` None) untouched (the
    engine's `Condition.ticked`)."""
    kept = []
    for k in c.get("conditions", []):
        rounds = k.get("rounds") if isinstance(k, dict) else None
        if not isinstance(k, dict) or rounds is None or bool(k.get("per_turn")) != per_turn:
            kept.append(k)
        elif rounds > 1:
            kept.append({**k, "rounds": rounds - 1})
    c["conditions"] = kept


def _round_ended(state: Data, event: Data, doubts: Doubts) -> None:
    """LIVE_COMBAT step 8: round-long conditions tick down."""
    for _, c in each_combatant(state):
        _ticked(c, per_turn=False)


def _turn_ended(state: Data, event: Data, doubts: Doubts) -> None:
    """Conditions that count their owner's turns tick down at the end of its turn."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    _ticked(found[1], per_turn=True)


def _listing(list_field: str, item_field: str) -> Fold:
    """Adds the event's `item_field` to the combatant's `list_field` once (a Broken
    item, a weapon dropped or knocked away)."""

    def fold_it(state: Data, event: Data, doubts: Doubts) -> None:
        found = named(state, event)
        if found is None:
            return cannot_fold(doubts, event)
        _, c = found
        items = list(c.get(list_field, []))
        if event.get(item_field) not in items:
            c[list_field] = [*items, event.get(item_field)]

    return fold_it


def _recovered(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM puts a dropped or Broken item back in its owner's hand, whole (R72)."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    c, item = found[1], event.get("item")
    for list_field in ("dropped", "broken"):
        if list_field in c:
            c[list_field] = [i for i in c.get(list_field, []) if i != item]


# --- where it stands (movement, rides, Ascension, overrides) --------------------------------


def _moved(state: Data, event: Data, doubts: Doubts) -> None:
    """At the end of its path, facing the way of its last step (worked out on the
    grid's geometry by the server: the view doubts its facing until told)."""
    found = named(state, event)
    path = event.get("path") or []
    if found is None or not path:
        return cannot_fold(doubts, event)
    who, c = found
    c["position"] = path[-1]
    doubts.doubt(who, "facing")


def _hold_began(state: Data, event: Data, doubts: Doubts) -> None:
    """V19: holding its action, and alert while it holds."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    found[1].update(holding=True, awareness="alert")


def _hold_ended(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    found[1]["holding"] = False


# --- the roster (the GM's AddCombatant and RemoveCombatant) ---------------------------------


def _combatant_added(state: Data, event: Data, doubts: Doubts) -> None:
    """The combatant (as this audience sees it), and its turns inserted at `at` in the
    turn order; the turn index and declarations follow the slots they were on."""
    added = event.get("combatant")
    if not isinstance(added, dict) or not isinstance(added.get("id"), str):
        return cannot_fold(doubts, event)
    state["combatants"] = {**state.get("combatants", {}), added["id"]: added}
    slots, at = list(event.get("slots", [])), list(event.get("at", []))
    if not slots:
        return
    window = state.get("window")
    able = not any(has_condition(added, name) for name in INCAPACITATING)
    if isinstance(window, dict) and window.get("kind") == "planning" and able:
        ask = {"$type": "Ask", "combatant": added["id"], "options": ["declare"]}
        state["window"] = {**window, "asked": [*window.get("asked", []), ask]}  # V20
    old = list(state.get("turn_order", []))
    inserted = dict(zip(at, slots, strict=False))
    order: list[Any] = []
    moved: list[int] = []  # moved[i]: the new index of old slot i
    rest = iter(old)
    for index in range(len(old) + len(inserted)):
        if index in inserted:
            order.append(inserted[index])
        else:
            order.append(next(rest))
            moved.append(index)
    _renumber(state, order, moved, own_turn_gone=False)


def _combatant_removed(state: Data, event: Data, doubts: Doubts) -> None:
    """Out of the view, its turns out of the order; a rider on it rides nothing."""
    removed = event.get("combatant")
    gone = removed.get("id") if isinstance(removed, dict) else None
    if not isinstance(gone, str):
        return cannot_fold(doubts, event)
    combatants = dict(state.get("combatants", {}))
    combatants.pop(gone, None)
    for cid, c in combatants.items():
        if isinstance(c, dict) and c.get("mounted_on") == gone:
            combatants[cid] = {**c, "mounted_on": ""}
    state["combatants"] = combatants
    doubts.forget(gone)
    old = list(state.get("turn_order", []))
    order: list[Any] = []
    moved: list[int] = []
    for slot in old:
        moved.append(len(order))
        if not (isinstance(slot, dict) and slot.get("combatant") == gone):
            order.append(slot)
    turn = state.get("turn")
    own = isinstance(turn, int) and 0 <= turn < len(old) and old[turn].get("combatant") == gone
    state["declarations"] = [
        d for d in state.get("declarations", []) if isinstance(d, dict) and d["combatant"] != gone
    ]
    window = state.get("window")
    if isinstance(window, dict):
        state["window"] = {
            **window,
            "asked": [a for a in window.get("asked", []) if a.get("combatant") != gone],
            "answered": [a for a in window.get("answered", []) if a != gone],
        }
    _renumber(state, order, moved, own_turn_gone=own)
    if own and state.get("phase") == "combat":
        # R63: its turn is over; the next starts once others' answers have resolved.
        state["turn_over"] = True


def _renumber(state: Data, order: list[Any], moved: list[int], *, own_turn_gone: bool) -> None:
    """The new turn order; the turn index and the declarations' slots moved with it (a
    removed combatant's own turn: the index of the turn before it, so the next follows)."""
    turn = state.get("turn")
    if isinstance(turn, int) and 0 <= turn < len(moved):
        state["turn"] = moved[turn] - 1 if own_turn_gone else moved[turn]
    state["turn_order"] = order
    state["declarations"] = [
        {**d, "turn": moved[d["turn"]]}
        for d in state.get("declarations", [])
        if isinstance(d, dict) and isinstance(d.get("turn"), int) and 0 <= d["turn"] < len(moved)
    ]


# --- the round's declarations (V20) -----------------------------------------------------------


def _declared(state: Data, event: Data, doubts: Doubts) -> None:
    """A declaration for one turn slot replaces any made for it (another side's arrives
    without its actions: the slot is what the view needs to know it was made)."""
    slot = event.get("slot")
    kept = [d for d in state.get("declarations", []) if d.get("turn") != slot]
    made = {
        "$type": "Declaration",
        "combatant": event.get("combatant"),
        "turn": slot,
        "actions": event.get("actions", []),
    }
    state["declarations"] = [*kept, made]
    who = event.get("combatant")
    window = state.get("window")
    declared = {d.get("turn") for d in state["declarations"] if d.get("combatant") == who}
    every_turn = all(slot in declared for slot in _slots_of(state, who))
    if isinstance(window, dict) and every_turn and who not in window.get("answered", []):
        state["window"] = {**window, "answered": [*window.get("answered", []), who]}


def _slots_of(state: Data, combatant: Any) -> list[int]:
    """The indexes of `combatant`'s turns in the turn order (V16: a fast one has two)."""
    order = state.get("turn_order", [])
    return [i for i, slot in enumerate(order) if slot.get("combatant") == combatant]


def _withdrawn(state: Data, event: Data, doubts: Doubts) -> None:
    state["declarations"] = [
        d for d in state.get("declarations", []) if d.get("turn") != event.get("slot")
    ]
    window = state.get("window")
    if isinstance(window, dict):
        who = event.get("combatant")
        answered = [a for a in window.get("answered", []) if a != who]
        state["window"] = {**window, "answered": answered}


def _revealed(state: Data, event: Data, doubts: Doubts) -> None:
    """V20: every declaration shown to everyone once the planning window closes."""
    state["declarations"] = list(event.get("declarations", []))


def _action_pushed(state: Data, event: Data, doubts: Doubts) -> None:
    """A declared action leaves its declaration as it goes on the stack."""
    slot = event.get("slot")
    if not isinstance(slot, int) or slot < 0:
        return
    state["declarations"] = [
        {**d, "actions": list(d.get("actions", []))[1:]} if d.get("turn") == slot else d
        for d in state.get("declarations", [])
    ]


def _round_started(state: Data, event: Data, doubts: Doubts) -> None:
    """A new round's declarations start empty (V20)."""
    state["declarations"] = []


def _turn_started(state: Data, event: Data, doubts: Doubts) -> None:
    """A hold lasts until the holder's next turn (V19)."""
    found = named(state, event)
    if found is None:
        return cannot_fold(doubts, event)
    found[1]["holding"] = False


VERSE_FOLDING = Folding(
    folds={
        "DamageDealt": _damage,
        "HealthSet": _health_set,
        "ManaSet": copying("combatant", mana="mana"),
        "ArmourSet": copying("combatant", armour_durability="durability"),
        "ItemUsed": _item_used,
        "SpellCast": _spell_cast,
        "SpellCharged": _spell_charged,
        "ChargeLost": _charge_lost,
        "AbilityDamaged": _ability,
        "AbilitySet": _ability,
        "ConditionGained": _condition_gained,
        "ConditionLost": _condition_lost,
        "RoundEnded": _round_ended,
        "TurnEnded": _turn_ended,
        "ItemBroken": _listing("broken", "item"),
        "WeaponDropped": _listing("dropped", "weapon"),
        "ItemKnockedAway": _listing("dropped", "item"),
        "ItemRecovered": _recovered,
        "Moved": _moved,
        "Faced": copying("combatant", facing="facing"),
        "PositionSet": copying(
            "combatant", position="cell", ascension="ascension", facing="facing", mounted_on="="
        ),
        "Mounted": copying("rider", position="cell", ascension="ascension", mounted_on="ride"),
        "Dismounted": copying("rider", position="cell", mounted_on="="),
        "RiderCarried": copying("rider", position="cell", ascension="ascension"),
        "RiderThrown": copying("rider", position="cell", mounted_on="="),
        "AscensionChanged": copying("combatant", ascension="to_level"),
        "StanceSet": copying("combatant", stance="stance"),
        "AwarenessSet": copying("combatant", awareness="awareness"),
        "HoldBegan": _hold_began,
        "HoldEnded": _hold_ended,
        "CombatantAdded": _combatant_added,
        "CombatantRemoved": _combatant_removed,
        "DeclarationMade": _declared,
        "DeclarationWithdrawn": _withdrawn,
        "DeclarationsRevealed": _revealed,
        "ActionPushed": _action_pushed,
        "RoundStarted": _round_started,
        "TurnStarted": _turn_started,
    },
    unchanged=frozenset(
        {
            # rolls and checks whose effects come as events of their own
            "AttackRolled",
            "ThrowChecked",
            "DefenceRolled",
            "DamageBlocked",
            "CriticalTableRolled",
            "CriticalRowChosen",
            "StealthChecked",
            "SpellAttackRolled",
            "ConcentrationChecked",
            "ManeuverRolled",
            "SpellDeciphered",
            # a helper's consent (R74): pledges are not kept in the view
            "ManaPledged",
            # what a turn spends, attacks of opportunity owed, the GM's approval of a
            # feat's actions (R73: a sheet's feats, which no screen shows)
            "FeatApproved",
            "ApprovalWithdrawn",
            "AggressiveOpportunitiesOpened",
            "OpportunityOpened",
            "OpportunityTaken",
            "TurnSkipped",
        }
    ),
)
"""Verse's folds, for its entry in the ruleset table (`verse_commands.VERSE`)."""
