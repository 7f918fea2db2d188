"""Verse Chronicles' own events and actions as sentences, in the server's words.

An attack reads `Goblin (g1) attacks Ayla with scimitar: d20 6 + Strength 2 + Training
1 = 9 vs PD 15: miss`. Another side's declaration
reads "declares (hidden until revealed)" until the window closes (V20), and another
side's health as its coarse state: the numbers a side may not see are not on the wire.
Another side's roll may come as its faces alone (`d20 14 (modifiers hidden) vs PD
(hidden): hit`) or as its outcome alone (`a hidden roll vs PD 15: hit`), as the room's
`roll_visibility` says (R77). The events the rule systems share (turns, windows,
pauses) are told in `narration.py`.
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
    changed_by,
    describe_roll,
    moved_to,
    number,
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


def _change_ascension(action: Data, story: Story) -> str:
    """V26: "ascend", or "ascend 3 levels" for a move over several."""
    levels = action.get("levels", 0)
    count = abs(levels) if isinstance(levels, int) else 1
    verb = "ascend" if isinstance(levels, int) and levels > 0 else "descend"
    return verb if count == 1 else f"{verb} {count} levels"


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


def _charge(action: Data, story: Story) -> str:
    aimed = ", ".join(story.names(t) for t in action.get("targets", []))
    where = action.get("target")
    if not aimed and isinstance(where, dict):
        aimed = cell(where)
    return "go on charging the spell" + (f" at {aimed}" if aimed else "")


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
    "ChangeAscension": _change_ascension,
    "Face": lambda action, story: f"turn to face {action.get('facing')}",
    "ChargeSpell": _charge,
    "Mount": lambda action, story: f"mount {story.names(str(action.get('ride', '')))}",
    "Dismount": lambda action, story: (
        f"dismount to {cell(action['cell'])}"
        if isinstance(action.get("cell"), dict)
        else "dismount"
    ),
    "SetAwareness": lambda action, story: (
        f"become {str(action.get('awareness')).replace('_', ' ')}"
    ),
    "StealthCheck": lambda action, story: (
        f"sneak past {story.names(str(action.get('observer', '')))}"
    ),
}


# --- the round: turns skipped, declarations (V20, V21) --------------------------------


@tells("TurnSkipped")
def _turn_skipped(event: Data, story: Story) -> str:
    return f"The GM skips {story.names(event['combatant'])}'s turn"


def _turn_of(story: Story, combatant: str, slot: Any) -> str:
    """` turn 2` for a combatant with several turns (V16) when the screen knows them."""
    number = story.turn_number(combatant, slot)
    return f" turn {number}" if number is not None else ""


@tells("DeclarationMade")
def _declared(event: Data, story: Story) -> str:
    combatant = str(event["combatant"])
    who = story.names(combatant)
    turn = _turn_of(story, combatant, event.get("slot"))
    actions = event.get("actions") or []
    if not actions and story.knows(combatant):  # an empty declaration: that turn passes
        return f"{who} declares nothing for{turn or ' the turn'}: it passes"
    if not actions:  # another side's: hidden (V20), and an empty one reads the same
        return f"{who} declares{' for' + turn if turn else ''} (hidden until revealed)"
    return f"{who} declares{' for' + turn if turn else ''}: {_then(actions, story)}"


def _then(actions: list[Any], story: Story) -> str:
    return ", then ".join(story.action(a) for a in actions)


@tells("DeclarationWithdrawn")
def _withdrawn(event: Data, story: Story) -> str:
    combatant = str(event["combatant"])
    turn = _turn_of(story, combatant, event.get("slot"))
    return f"{story.names(combatant)} withdraws a declaration{' for' + turn if turn else ''}"


@tells("DeclarationsRevealed")
def _revealed(event: Data, story: Story) -> str:
    """Each declaration (a fast combatant's by turn, V16, when the screen knows its
    turns), then who passed: a combatant that declared some turns but not all passed
    the others, and reads so, not as having declared nothing."""
    lines = ["Declarations revealed:"]
    declared: dict[str, list[Any]] = {}
    for declaration in event["declarations"]:
        combatant = str(declaration["combatant"])
        declared.setdefault(combatant, []).append(declaration.get("turn"))
        turn = _turn_of(story, combatant, declaration.get("turn"))
        actions = _then(declaration["actions"], story)
        label = f"{story.names(combatant)}{',' + turn if turn else ''}"
        lines.append(f"  {label}: {actions or 'nothing (passes)'}")
    nothing, some = [], []
    for passed in event.get("passed", []):
        combatant = str(passed)
        if combatant not in declared:
            nothing.append(story.names(combatant))
            continue
        turns = list(story.turns(combatant))
        left = [n for n, slot in enumerate(turns, 1) if slot not in declared[combatant]]
        if turns and left:
            which = " and ".join(f"turn {n}" for n in left)
            some.append(f"{story.names(combatant)} ({which} not declared)")
        else:
            some.append(story.names(combatant))
    if nothing:
        lines.append(f"  declared nothing: {', '.join(nothing)}")
    if some:
        lines.append(f"  passed a turn: {', '.join(some)}")
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
        f"{number(event, 'defence')}{changed_by(event)}: {outcome}"
    )


@tells("DefenceRolled")
def _defence(event: Data, story: Story) -> str:
    """A Dodge or Block save (V22, V19). A Dodge that succeeds avoids the attack
    entirely (defences.py), so the line says so: nothing follows it to tell."""
    result = "succeeds" if event["success"] else "fails"
    if event["success"] and "dodge" in str(event.get("kind")):
        attacker = event.get("attacker")
        whose = f"{story.names(str(attacker))}'s attack" if attacker else "the attack"
        result = f"succeeds: {whose} is avoided"
    item = f" with the {event['item']}" if event.get("item") else ""
    against = event.get("against", "the attack")  # another side's total: not shown (R77)
    return (
        f"{story.names(event['defender'])} tries to {event['kind']}{item}: "
        f"{describe_roll(event['roll'])} vs {against}: {result}"
    )


@tells("DamageDealt")
def _damage(event: Data, story: Story) -> str:
    """The damage and how it split against the resistance; a side that may not see the
    target's numbers reads its coarse health after it instead (R77), and one that saw
    neither dealing nor taking it not even the amount."""
    roll = f"{describe_roll(event['roll'])}; " if event.get("roll") else ""
    affinity = f" ({event['affinity']})" if event.get("affinity") else ""
    amount = f"{event['amount']} damage" if "amount" in event else "damage"
    text = f"{story.names(event['target'])} takes {roll}{amount}"
    # A condition's damage (V27) meets no resistance: it has no `resistance_name`.
    against = f" vs {event['resistance_name']}" if event.get("resistance_name") else ""
    if "resistance" in event:
        number = f" {event['resistance']}" if against else ""
        text += (
            f"{against}{number}{changed_by(event, 'resistance_changes')}: "
            f"{event['to_health']} to health, {event['to_armour']} to armour"
        )
    elif "health_state" in event:
        text += f"{against}: now {event['health_state']}"
    return text + affinity


@tells("DamageBlocked")
def _blocked(event: Data, story: Story) -> str:
    return f"{story.names(event['defender'])} blocks with the {event['item']}"


@tells("SpellAttackRolled")
def _spell_attack(event: Data, story: Story) -> str:
    against = ", ".join(
        f"{story.names(r['target'])} {event['defence_name']} {number(r, 'defence')}"
        f"{changed_by(r)}: "
        f"{str(r['outcome']).replace('_', ' ')}"
        for r in event.get("results", [])
    )
    damage = event.get("damage")  # one damage roll for every target it affects (V1, V2)
    rolled = f"; damage {describe_roll(damage)}" if isinstance(damage, dict) else ""
    return (
        f"{story.names(event['caster'])} casts {event['spell']}: "
        f"{describe_roll(event['roll'])} vs {against or 'nobody'}{rolled}"
    )


@tells("SpellCast")
def _spell_cast(event: Data, story: Story) -> str:
    """A spell that takes more than one action is charged (V12, docs/rules.md section
    9): one Standard action a round, the cast the first, so as many rounds as actions;
    the line says what the caster must do in each later round, and what a round
    without it costs."""
    caster = story.names(event["caster"])
    text = f"{caster} casts {event['spell']} for {event['mc']} MC"
    rounds = event.get("cast_time")
    if not isinstance(rounds, int) or rounds <= 1:
        return text
    later = "the next round" if rounds == 2 else f"each of the next {rounds - 1} rounds"
    return (
        f"{text}: a charged spell, {rounds} rounds (1 of {rounds} actions done); it goes off "
        f"with the last\n  {caster} must charge it in {later}: one Standard action a round "
        f"({_charging(story)}); a round that ends without it loses the spell (its mana "
        "stays spent)"
    )


def _charging(story: Story) -> str:
    """What the caster types to charge, in the room's mode (V20, V25)."""
    if story.mode == "live":
        return "'declare charge' in the planning window"
    if story.mode == "turn_based":
        return "'charge' on the caster's turn"
    return "'charge': declared in Live Combat, typed on the turn when turn based"


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
        text = f"The GM sets {who}'s health to {event['health']} (was {event.get('previous')})"
        if event["health"] == 0:  # the engine keeps the two apart (GM overrides)
            text += ": health 0 alone is not Dead (an override adds no condition)"
        return text
    return f"The GM changes {who}'s health: now {event.get('health_state', 'changed')}"


@tells("ManaSet")
def _mana_set(event: Data, story: Story) -> str:
    return _set(event, story, "mana", "mana")


@tells("ArmourSet")
def _armour_set(event: Data, story: Story) -> str:
    return _set(event, story, "armour durability", "durability")


@tells("AbilitySet")
def _ability_set(event: Data, story: Story) -> str:
    return _set(event, story, str(event["ability"]).capitalize(), "score")


def _set(event: Data, story: Story, what: str, key: str) -> str:
    """A GM override of a number; another side sees that it changed, not the number."""
    who = story.names(event["combatant"])
    if key not in event:
        return f"The GM changes {who}'s {what}"
    return f"The GM sets {who}'s {what} to {event[key]} (was {event.get('previous')})"


@tells("PositionSet")
def _position_set(event: Data, story: Story) -> str:
    text = f"The GM places {story.names(event['combatant'])} at {cell(event['cell'])}"
    if event.get("ascension") != event.get("previous_ascension"):
        text += f", Ascension {event.get('ascension')}"
    if event.get("facing") != event.get("previous_facing"):
        text += f", facing {event.get('facing')}"
    if event.get("left_ride"):
        text += f" (off {story.names(event['left_ride'])})"
    return text


def _added_name(combatant: Any, story: Story) -> str:
    """A combatant joining or leaving: the view's name, else its sheet's."""
    cid = str(combatant.get("id", "?")) if isinstance(combatant, dict) else "?"
    name = story.names(cid)
    sheet = combatant.get("sheet") if isinstance(combatant, dict) else None
    if name == cid and isinstance(sheet, dict) and sheet.get("name"):
        return f"{sheet['name']} ({cid})"
    return name


@tells("CombatantAdded")
def _added(event: Data, story: Story) -> str:
    text = f"{_added_name(event['combatant'], story)} joins the fight"
    rolls = [describe_roll(r.get("roll")) for r in event.get("initiative", [])]
    return text + (f": initiative {'; '.join(rolls)}" if rolls else "")


@tells("CombatantRemoved")
def _removed(event: Data, story: Story) -> str:
    """Its actions on the stack go with it (R63); others' answers stay."""
    text = f"The GM takes {_added_name(event['combatant'], story)} out of the fight"
    pending = event.get("pending")
    actions = [p["action"] for p in pending or () if isinstance(p, dict) and "action" in p]
    if actions:
        text += f"; its action on the stack goes with it: {_then(actions, story)}"
    return text


def _approved_kind(event: Data) -> str:
    """The kind of action approved, as words; another side's view does not say (R73)."""
    kind = event.get("kind")
    return f"{str(kind).replace('_', ' ')} actions" if kind else "something (hidden)"


@tells("FeatApproved")
def _feat_approved(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    if not event.get("kind"):
        return f"The GM approves something for {who} (hidden from your side)"
    return (
        f"The GM lets {who} take {_approved_kind(event)} without the feat "
        "(Verse Master approval, R73)"
    )


@tells("ApprovalWithdrawn")
def _approval_withdrawn(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    return f"The GM takes back {who}'s approval for {_approved_kind(event)}"


# --- items, weapons and criticals (V5-V7, V9) -----------------------------------------


@tells("WeaponDropped")
def _weapon_dropped(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    return f"{who} drops the {event['weapon']}{reason(event.get('reason'))}"


@tells("ItemBroken")
def _item_broken(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    return f"{who}'s {event['item']} is Broken{reason(event.get('reason'))}"


@tells("ItemRecovered")
def _item_recovered(event: Data, story: Story) -> str:
    was = [
        w
        for w, on in (("dropped", event.get("was_dropped")), ("Broken", event.get("was_broken")))
        if on
    ]
    before = f" (it was {' and '.join(was)})" if was else ""
    return (
        f"The GM puts the {event['item']} back in {story.names(event['combatant'])}'s hand, "
        f"whole{before}"
    )


@tells("AbilityDamaged")
def _ability_damaged(event: Data, story: Story) -> str:
    roll = f" ({describe_roll(event['roll'])})" if event.get("roll") else ""
    amount = f"{event['amount']} " if "amount" in event else ""  # another side's (R77)
    return (
        f"{story.names(event['combatant'])} takes {amount}"
        f"{str(event['ability']).capitalize()} damage{roll}{reason(event.get('reason'))}"
    )


@tells("ThrowChecked")
def _throw(event: Data, story: Story) -> str:
    result = "thrown" if event["success"] else "too heavy to throw that far"
    return (
        f"{story.names(event['actor'])} throws the {event['item']}: "
        f"{describe_roll(event['roll'])} vs Throw DC {number(event, 'dc')}: {result}"
    )


def _table(name: Any) -> str:
    return str(name).replace("_", " ")


@tells("CriticalTableRolled")
def _critical_rolled(event: Data, story: Story) -> str:
    return (
        f"{_table(event['table']).capitalize()} table for {story.names(event['combatant'])}: "
        f"{describe_roll(event['roll'])}: row {event['row']}: {event['text']}"
    )


@tells("CriticalRowChosen")
def _critical_chosen(event: Data, story: Story) -> str:
    return (
        f"The GM picks row {event['row']} of the {_table(event['table'])} table for "
        f"{story.names(event['combatant'])}: {event['text']}"
    )


@tells("ItemUsed")
def _item_used(event: Data, story: Story) -> str:
    text = f"{story.names(event['combatant'])} uses the {event['item']}"
    if event.get("roll"):
        text += f": {describe_roll(event['roll'])}"
    healed = event.get("healed")
    if "healed" not in event and "health_state" in event:  # another side's numbers (R77)
        return f"{text}: now {event['health_state']}"
    return text + (f", {healed} health back" if healed else "")


@tells("ManeuverRolled")
def _maneuver(event: Data, story: Story) -> str:
    result = "succeeds" if event["success"] else "fails"
    return (
        f"{story.names(event['actor'])} tries to knock an item out of "
        f"{story.names(event['target'])}'s hand: {describe_roll(event['roll'])} vs PD "
        f"{number(event, 'defence')}{changed_by(event)}: {result}"
    )


@tells("ItemKnockedAway")
def _knocked_away(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['by'])} knocks the {event['item']} out of "
        f"{story.names(event['combatant'])}'s hand"
    )


# --- stances, opportunities, movement, awareness, rides (V12-V19) --------------------


def _action_kind(event: Data) -> str:
    return f" ({event['action']} action)" if event.get("action") else ""


@tells("StanceSet")
def _stance_set(event: Data, story: Story) -> str:
    who = story.names(event["combatant"])
    previous = event.get("previous")
    was = f", leaving the {previous} stance" if previous and previous != "none" else ""
    return f"{who} takes the {event['stance']} stance{was}{_action_kind(event)}"


@tells("AggressiveOpportunitiesOpened")
def _aggressive(event: Data, story: Story) -> str:
    targets = ", ".join(story.names(t) for t in event.get("targets", [])) or "nobody"
    return (
        f"{story.names(event['attacker'])} attacked in Aggressive Stance: may make an "
        f"attack of opportunity on {targets}"
    )


@tells("OpportunityOpened")
def _opportunity_opened(event: Data, story: Story) -> str:
    by = ", ".join(story.names(b) for b in event.get("by", [])) or "nobody"
    return (
        f"{story.names(event['mover'])} moves through or out of reach (step {event['at_step']}): "
        f"{by} may make an attack of opportunity"
    )


@tells("OpportunityTaken")
def _opportunity_taken(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['actor'])} takes the attack of opportunity on "
        f"{story.names(event['target'])}"
    )


@tells("Faced")
def _faced(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} turns to face {event['facing']}"


@tells("AscensionChanged")
def _ascension(event: Data, story: Story) -> str:
    up = event["to_level"] > event["from_level"]
    return (
        f"{story.names(event['combatant'])} {'ascends' if up else 'descends'} to Ascension "
        f"{event['to_level']} (from {event['from_level']}, {event['distance_ft']} ft)"
        f"{_action_kind(event)}"
    )


@tells("AwarenessSet")
def _awareness(event: Data, story: Story) -> str:
    now = str(event["awareness"]).replace("_", " ")
    was = str(event.get("previous") or "").replace("_", " ")
    return f"{story.names(event['combatant'])} is now {now}" + (f" (was {was})" if was else "")


@tells("StealthChecked")
def _stealth(event: Data, story: Story) -> str:
    result = "unseen" if event["success"] else "seen"
    return (
        f"{story.names(event['sneaker'])} sneaks past {story.names(event['observer'])}: "
        f"{describe_roll(event['stealth_roll'])} vs Perception "
        f"{describe_roll(event['perception_roll'])}: {result}"
    )


@tells("Mounted")
def _mounted(event: Data, story: Story) -> str:
    return f"{story.names(event['rider'])} mounts {story.names(event['ride'])}{_action_kind(event)}"


@tells("Dismounted")
def _dismounted(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['rider'])} dismounts {story.names(event['ride'])} to "
        f"{cell(event['cell'])}{_action_kind(event)}"
    )


@tells("RiderCarried")
def _carried(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['rider'])} rides with {story.names(event['ride'])} to "
        f"{cell(event['cell'])}"
    )


@tells("RiderThrown")
def _thrown(event: Data, story: Story) -> str:
    result = "lands on its feet" if event["success"] else "lands Prone"
    return (
        f"{story.names(event['rider'])} is thrown as {story.names(event['ride'])} goes down: "
        f"{describe_roll(event['roll'])} vs DC {event['dc']}: {result} at {cell(event['cell'])}"
    )


# --- spells being charged and learnt (V12, V13) ---------------------------------------


@tells("ManaPledged")
def _pledged(event: Data, story: Story) -> str:
    """R74: a helper's consent to pay a share of another's cast; another side sees only
    that a pledge was made (views.py)."""
    helper = story.names(event["helper"])
    if "caster" not in event:
        return f"{helper} pledges mana to someone's spell"
    spell = f"{story.names(event['caster'])}'s {event['spell']}"
    if not event.get("share"):
        return f"{helper} takes back its pledge to {spell}"
    return f"{helper} pledges up to {event['share']} MC of {spell} this round"


@tells("SpellCharged")
def _charged(event: Data, story: Story) -> str:
    done, needed = event["actions_done"], event["actions_needed"]
    left = needed - done
    ready = ": it goes off"
    if left == 1:
        ready = ": one more charge, next round, sets it off"
    elif left > 1:
        ready = f": {left} more rounds to charge, one action in each"
    return (
        f"{story.names(event['caster'])} charges {event['spell']} ({done} of {needed} "
        f"actions){ready}"
    )


@tells("ConcentrationChecked")
def _concentration(event: Data, story: Story) -> str:
    result = "keeps the charge" if event["success"] else "loses it"
    return (
        f"{story.names(event['caster'])} keeps concentrating on {event['spell']}"
        f"{reason(event.get('reason'))}: {describe_roll(event['roll'])} "
        f"vs DC {number(event, 'dc')}: "
        f"{result}"
    )


@tells("ChargeLost")
def _charge_lost(event: Data, story: Story) -> str:
    return (
        f"{story.names(event['caster'])}'s {event['spell']} is lost"
        f"{reason(event.get('reason'))}: the spell does not go off and its mana is gone"
    )


@tells("SpellDeciphered")
def _deciphered(event: Data, story: Story) -> str:
    spell = event["spell"]
    name = spell.get("name", "?") if isinstance(spell, dict) else spell
    result = "learnt" if event["success"] else "not learnt"
    return (
        f"{story.names(event['combatant'])} deciphers {name}: {describe_roll(event['roll'])} "
        f"vs DC {number(event, 'dc')}: {result}"
    )


VERSE_TELLING = Telling(events=NARRATORS, actions=ACTIONS, answering=_answering)
"""Verse's narration, as `narration.TELLINGS` holds it."""
