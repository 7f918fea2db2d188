"""Folding World of Tael events into the view (`folding.py` says how and why).

Each fold mirrors the engine's applier of its event (`server/engine/rulesets/tael/`,
the `@TAEL.applies` functions) for what the table looks at. Kept current of a
combatant: `hit_points` and `willpower_dc` (for its own side), `health_state` (for
another side), `statuses` (T6), `fainted` and `dead` (T8), `position`, `stance` (T7),
the weapons in its hands and on the ground, whether it is braced, winded, hidden or
surrendered (T9), where it stands with its preparation (T2), and what its turn has
used (`turn`: the Actions and Bonus Actions spent, the tiles walked, Dash and Sprint,
the off-hand attack and the Punch a first one readies, whether it was lost; T2, T5,
T9), as the engine's `actions.spent` and the appliers keep it; of the fight, its end
(T10). Another side's sheet names no weapons, so the off-hand attack its one-handed
attack readies cannot be told: its `turn` is doubted until its next turn starts.

Another side's health: `DamageTaken` and `HitPointsSet` arrive with `health_state` for
another side, fainting and death mean "down"; standing up again (a Willpower check
or Help, with 1 hit point, T8) is "bloodied" unless the sheet has a single hit point,
which the other side cannot know: that guess is doubted.
"""

from __future__ import annotations

from clients.folding import (
    Data,
    Doubts,
    Fold,
    Folding,
    cannot_fold,
    copying,
    health_state_from,
    named,
)

DOWN, BLOODIED = "down", "bloodied"
SPRINT = 4  # T9: the factor of a Sprint, after which the next turn has no movement
BONUS, OFF_HAND = "bonus", "off_hand"  # the slots of `actions.spent` that are no Action
ATTACKING_KINDS = ("melee", "ranged", "fist")  # the sheet's weapons that attack (T5)


# --- hit points, fainting and death (T5, T8; the GM's override) -----------------------------


def _damage_taken(state: Data, event: Data, doubts: Doubts) -> None:
    """The hit points left (its own side) or the coarse health (another side)."""
    found = named(state, event, "target")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    if "hit_points" in event and "hit_points" in c:
        c["hit_points"] = event["hit_points"]
    health_state_from(c, event, who, doubts)


def _down(c: Data) -> None:
    if "hit_points" in c:
        c["hit_points"] = 0
    if "health_state" in c:
        c["health_state"] = DOWN


def _fainted(state: Data, event: Data, doubts: Doubts) -> None:
    """T8: 0 hit points, a fresh Willpower track; its preparation and Brace are gone."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    _down(c)
    doubts.settle(who, "health_state")
    c.update(fainted=True, preparation="none", prepared="", braced=False, hidden=False)
    if "willpower_dc" in c:
        c.update(willpower_dc=5, willpower_failures=0)  # T8: "The initial Willpower DC is 5"


def _died(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    _down(c)
    doubts.settle(who, "health_state")
    c.update(dead=True, fainted=False)


def _stood_up(who: str, c: Data, event: Data, doubts: Doubts) -> None:
    """Up again with 1 hit point and a cleared Willpower track (T8, T9 Help)."""
    c["fainted"] = False
    if "hit_points" in c:
        c["hit_points"] = 1
    if "willpower_dc" in c:
        c.update(willpower_dc=5, willpower_failures=0)
    if "health_state" in c and not health_state_from(c, event, who, doubts):
        c["health_state"] = BLOODIED  # 1 hit point of more than one
        doubts.doubt(who, "health_state")


def _willpower_checked(state: Data, event: Data, doubts: Doubts) -> None:
    """T8: it stands up, or its DC rises by 1 after a success and failures count."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    if event.get("stood_up"):
        return _stood_up(who, c, event, doubts)
    if isinstance(c.get("willpower_dc"), int) and event.get("success"):
        c["willpower_dc"] += 1
    if "willpower_failures" in c:
        c["willpower_failures"] = event.get("failures", 0)


def _helped_up(state: Data, event: Data, doubts: Doubts) -> None:
    """T9 Help: the helper spends its Action, the fainted ally stands up."""
    helper = named(state, event, "helper")
    found = named(state, event, "target")
    if found is None or helper is None:
        return cannot_fold(doubts, event)
    _spent(helper[1], event.get("slot"))
    _stood_up(*found, event, doubts)


def _hit_points_set(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM set hit points; above 0 a fainted combatant stands up (`stood_up`)."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    if event.get("stood_up"):
        _stood_up(who, c, event, doubts)
    if "hit_points" in event and "hit_points" in c:
        c["hit_points"] = event["hit_points"]
    health_state_from(c, event, who, doubts)


# --- statuses (T6) --------------------------------------------------------------------------


def _status_gained(state: Data, event: Data, doubts: Doubts) -> None:
    """A status replaces one of the same name."""
    found = named(state, event, "target")
    status = event.get("status")
    if found is None or not isinstance(status, dict):
        return cannot_fold(doubts, event)
    c = found[1]
    name = status.get("name")
    kept = [s for s in c.get("statuses", []) if isinstance(s, dict) and s.get("name") != name]
    c["statuses"] = [*kept, status]


def _status_ended(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event, "target")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    c["statuses"] = [
        s for s in c.get("statuses", []) if isinstance(s, dict) and s.get("name") != event["status"]
    ]


# --- turns and the Preparation Phase (T2) ---------------------------------------------------


def _turn_started(state: Data, event: Data, doubts: Doubts) -> None:
    """A fresh Action Phase: nothing used yet (no movement after a Sprint, T9), the
    Preparation Phase is over, Brace ends (TR19), a Sprint's wind is spent."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    if isinstance(c.get("turn"), dict):
        c["turn"] = {**c["turn"], **FRESH_TURN, "movement_factor": 0 if c.get("winded") else 1}
        doubts.settle(who, "turn")
    c.update(winded=False, braced=False, preparation="none", prepared="")


FRESH_TURN: Data = {
    "actions": [],
    "bonus": 0,
    "moved": 0,
    "movement_factor": 1,
    "off_hand": "",
    "punched": False,
    "punch_hits": [],
    "lost": False,
}
"""The engine's `FRESH_TURN` (`TurnUse()`), as the view carries it."""


def _using(c: Data, **changes: object) -> None:
    """Change what the combatant's turn has used (`TurnUse.with_turn`)."""
    turn = c.get("turn")
    if isinstance(turn, dict):
        c["turn"] = {**turn, **changes}


def _spent(c: Data, slot: object) -> None:
    """`actions.spent`: an Action of the slot's kind, or a Bonus Action; a prepared
    move, a free choice ("") and the off-hand attack's gained Bonus Action spend none
    of the turn's own."""
    turn = c.get("turn")
    if not isinstance(turn, dict) or slot in ("", OFF_HAND, None):
        return
    if slot == BONUS:
        _using(c, bonus=int(turn.get("bonus", 0)) + 1)
    else:
        _using(c, actions=[*turn.get("actions", []), slot])


def _spending(key: str, then: Fold | None = None) -> Fold:
    """A fold that spends the event's `slot` for the combatant `event[key]` names, then
    does `then`."""

    def fold_it(state: Data, event: Data, doubts: Doubts) -> None:
        found = named(state, event, key)
        if found is None:
            return cannot_fold(doubts, event)
        _spent(found[1], event.get("slot"))
        if then is not None:
            then(state, event, doubts)

    return fold_it


def _turn_lost(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    _using(found[1], lost=True)


def _turn_ended(state: Data, event: Data, doubts: Doubts) -> None:
    """T2: the Preparation Phase begins unless the turn was lost or Brace took it;
    statuses count one more of its turns down (T6)."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    turn = c.get("turn")
    lost = isinstance(turn, dict) and bool(turn.get("lost"))
    able = not c.get("dead") and not c.get("fainted")
    c["preparation"] = "open" if able and not lost and not c.get("braced") else "none"
    c["prepared"] = ""
    c["statuses"] = [
        {**s, "from_next_turn": False}
        if s.get("from_next_turn")
        else {**s, "turns": s["turns"] - 1}
        for s in c.get("statuses", [])
        if isinstance(s, dict)
        and isinstance(s.get("turns"), int)
        and (s["turns"] > 1 or s.get("from_next_turn"))
    ]


def _answered(state: Data, event: Data, doubts: Doubts) -> None:
    """A prepared move answering a window is used, and so shown to everyone (T2)."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    found[1].update(preparation="used", prepared=event.get("option", ""))


# --- the Action Phase's actions (T5, T7, T9) ------------------------------------------------


def _moved(state: Data, event: Data, doubts: Doubts) -> None:
    found = named(state, event, "combatant")
    path = event.get("path") or []
    if found is None or not path:
        return cannot_fold(doubts, event)
    c = found[1]
    c["position"] = path[-1]
    turn = c.get("turn")
    if isinstance(turn, dict):
        _using(c, moved=int(turn.get("moved", 0)) + int(event.get("tiles", len(path))))


def _hit_checked(state: Data, event: Data, doubts: Doubts) -> None:
    """`attacks.apply_hit_checked`: the attacker spends its slot and shows itself
    (TR20); a one-handed weapon attack readies the other hand's attack (T5), the
    off-hand attack uses it up, a Punch spent as an Action readies a Punch to follow
    it (T9)."""
    found = named(state, event, "attacker")
    if found is None:
        return cannot_fold(doubts, event)
    who, c = found
    _spent(c, event.get("slot"))
    c.update(hidden=False, surrendered=False)
    turn = c.get("turn")
    if not isinstance(turn, dict):
        return
    kind = event.get("kind")
    if kind == "weapon":
        ready = _other_hand(c, str(event.get("weapon", "")))
        if ready is None:
            doubts.doubt(who, "turn")  # another side's sheet names no weapons
        else:
            _using(c, off_hand=ready)
    elif kind == OFF_HAND:
        _using(c, off_hand="")
    elif kind == "punch" and event.get("slot") != BONUS:
        hits = list(turn.get("punch_hits", []))
        if event.get("hit"):
            hits.append(event.get("target"))
        _using(c, punched=True, punch_hits=hits)


def _other_hand(c: Data, name: str) -> str | None:
    """`attacks.other_hand`: the weapon in the other hand an off-hand attack may use
    after a one-handed attack with `name` ("" when none); None when the view does not
    show the sheet's weapons."""
    sheet = c.get("sheet")
    weapons = sheet.get("weapons") if isinstance(sheet, dict) else None
    if not isinstance(weapons, list):
        return None
    by_name = {w.get("name"): w for w in weapons if isinstance(w, dict)}
    weapon = by_name.get(name)
    if weapon is None or weapon.get("hands", 1) != 1:
        return ""
    main, off = c.get("main_hand", ""), c.get("off_hand", "")
    other = off if name == main else main
    found = by_name.get(other) if other and other != name else None
    return other if found is not None and found.get("kind", "melee") in ATTACKING_KINDS else ""


def _spell_hit_checked(state: Data, event: Data, doubts: Doubts) -> None:
    """The caster spends its slot and shows itself (TR20)."""
    found = named(state, event, "caster")
    if found is None:
        return cannot_fold(doubts, event)
    _spent(found[1], event.get("slot"))
    found[1].update(hidden=False, surrendered=False)


def _dashed(state: Data, event: Data, doubts: Doubts) -> None:
    """T9: Dash doubles this turn's movement, Sprint quadruples it and winds."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    _spent(c, event.get("slot"))
    turn = c.get("turn")
    factor = event.get("factor", 1)
    if isinstance(turn, dict) and isinstance(factor, int):
        _using(c, movement_factor=int(turn.get("movement_factor", 1)) * factor)
    if factor == SPRINT:
        c["winded"] = True


def _flag(name: str) -> Fold:
    """The combatant spends the event's slot and is now `name` (braced, hidden)."""

    def fold_it(state: Data, event: Data, doubts: Doubts) -> None:
        found = named(state, event, "combatant")
        if found is None:
            return cannot_fold(doubts, event)
        _spent(found[1], event.get("slot"))
        found[1][name] = True

    return fold_it


def _surrendered(state: Data, event: Data, doubts: Doubts) -> None:
    """T9: it drops the weapons in its hands."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    _spent(c, event.get("slot"))
    _using(c, off_hand="")
    dropped = list(c.get("dropped", []))
    dropped += [w for w in event.get("dropped", []) if w not in dropped]
    c.update(main_hand="", off_hand="", dropped=dropped, surrendered=True)


def _picked_up(state: Data, event: Data, doubts: Doubts) -> None:
    """T9: off the ground, and into its empty hand when `equipped`."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    _spent(c, event.get("slot"))
    weapon = event.get("weapon")
    c["dropped"] = [w for w in c.get("dropped", []) if w != weapon]
    if event.get("equipped"):
        c.update(main_hand=weapon, surrendered=False)


def _equipped(state: Data, event: Data, doubts: Doubts) -> None:
    """T9: these weapons in hand; taking one up ends a surrender."""
    found = named(state, event, "combatant")
    if found is None:
        return cannot_fold(doubts, event)
    c = found[1]
    _spent(c, event.get("slot"))
    _using(c, off_hand="")
    armed = bool(event.get("main_hand") or event.get("off_hand"))
    c.update(
        main_hand=event.get("main_hand", ""),
        off_hand=event.get("off_hand", ""),
        surrendered=bool(c.get("surrendered")) and not armed,
    )


TAEL_FOLDING = Folding(
    folds={
        "DamageTaken": _damage_taken,
        "Fainted": _fainted,
        "Died": _died,
        "WillpowerChecked": _willpower_checked,
        "WillpowerDcRaised": copying("combatant", willpower_dc="dc"),
        "HelpedUp": _helped_up,
        "HitPointsSet": _hit_points_set,
        "StatusGained": _status_gained,
        "StatusEnded": _status_ended,
        "TurnStarted": _turn_started,
        "TurnLost": _turn_lost,
        "TurnEnded": _turn_ended,
        "Answered": _answered,
        "PreparationAnnounced": copying("combatant", prepared="move"),
        "TilesMoved": _moved,
        "StanceChosen": copying("combatant", stance="stance"),
        "HitChecked": _hit_checked,
        "SpellHitChecked": _spell_hit_checked,
        "SkillChecked": _spending("combatant"),
        "Dashed": _dashed,
        "Braced": _flag("braced"),
        "HideAttempted": _flag("hidden"),
        "Surrendered": _surrendered,
        "PickedUp": _picked_up,
        "WeaponsEquipped": _equipped,
    },
    unchanged=frozenset(
        {
            # rolls whose effects come as events of their own
            "ResistChecked",
            "DamageRolled",
            "DamagePrevented",
            # the stack and the round, which change nothing else of a Tael combatant
            "ActionPushed",
            "RoundEnded",
        }
    ),
)
"""Tael's folds, for its entry in the ruleset table (`tael_commands.TAEL`)."""
