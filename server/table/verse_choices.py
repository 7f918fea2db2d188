"""Verse's choices: declarations (V20), a turn's actions (V25) and window answers (V19-V23).

What Verse proposes, the engine then filters (`choices.Probe`):

* **Live Combat, planning** (V20): a `Compose` of the `Declare` for the combatant's
  first undeclared turn this round (its first turn once all are declared: declaring
  again replaces it), at most `live.MAX_DECLARED` actions, and each action it may
  declare as a `part`, tested as the declaration of that action alone (R71, R72, R78:
  a target no move this round could bring within reach or range is not offered).
  Besides: `PassWindow` (V20, declaring nothing for every turn left) and `Withdraw`
  for each turn it declared.
* **Turn Based Combat, its own turn** (V25): each action as a command, and `EndTurn`.
* **A reaction, counter or adapt window that asks it** (V21-V23): each option of its
  ask: Dodge and Block (V22) and the holder's Dodge (V19) as they are; a held action
  (V19: any action the engine lets a holder take, a Standard or a Swift); a Quick
  Response's Knock Away (V22) aimed at the actor, at the item or weapon its action
  names (the action on the stack is public; its other items are not); an attack of
  opportunity (V22, V18) or a Counter (V22) with each weapon it may use; a new action
  for an adapt window (V23), or giving the action up; and passing.

The actions: attack with each weapon in hand (unarmed when it holds none) at any other
combatant; Ascend and Attack (V26) at one on another level; move to each cell a path
around those standing in the way reaches within its speed; change Ascension level
(V26); take a stance (V18); face another way; change awareness; sneak past a foe;
use an item; hold (V19); cast each spell it knows at a combatant (its caster alone
for a Self spell; a Cone, Line or Area aimed by that combatant); charge the spell it
is charging (V12); mount a ride of its side or dismount next to its ride. Not offered:
pledging mana (R74: its share is a number of the player's own choosing), deciphering
a spell (a text the GM hands over), a spell's extra dice, options and helpers (the
cast is offered at its minimum cost).
"""

from __future__ import annotations

from functools import partial

from server.engine.core import Command
from server.engine.flow import Mode, Window, WindowKind
from server.engine.grid import Cell
from server.engine.rulesets.verse.ascension import LEVEL_FT, AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import UNARMED, Attack
from server.engine.rulesets.verse.awareness import SetAwareness, StealthCheck
from server.engine.rulesets.verse.combatant import Awareness, Stance, VerseCombatant
from server.engine.rulesets.verse.declarations import climb_ft
from server.engine.rulesets.verse.defences import blocking_item
from server.engine.rulesets.verse.live import (
    MAX_DECLARED,
    Declare,
    Withdraw,
    declaration_at,
    slots_of,
)
from server.engine.rulesets.verse.live_actions import Counter, HoldAction, KnockAway, UseItem
from server.engine.rulesets.verse.movement import (
    Face,
    Move,
    OpportunityAttack,
    movement_limit_ft,
)
from server.engine.rulesets.verse.positions import blocker_at
from server.engine.rulesets.verse.reactions import (
    ADAPT,
    BLOCK,
    COUNTER,
    HOLD,
    HOLDER_DODGE,
    OPPORTUNITY,
    QUICK_RESPONSE,
)
from server.engine.rulesets.verse.rides import Dismount, Mount
from server.engine.rulesets.verse.sheet import SpellShape, Weapon
from server.engine.rulesets.verse.spell_charges import ChargeSpell
from server.engine.rulesets.verse.spell_shapes import affects_caster_only
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.stances import SetStance
from server.engine.stack import Answer, PassWindow
from server.engine.state import Encounter
from server.table.choices import (
    Candidate,
    Data,
    Offer,
    Option,
    Probe,
    asked,
    cell_options,
    combatant_options,
    fixed,
    others,
    paths_from,
    register_choices,
    seat,
    turn_seat,
    window_seat,
)

MOST_LEVELS = 3  # levels up or down offered for one change (V26: the engine says which)
STANCES = {
    Stance.NONE: "No stance",
    Stance.DEFENSIVE: "Defensive stance",
    Stance.AGGRESSIVE: "Aggressive stance",
}
AWARENESS = (Awareness.ALERT, Awareness.ON_GUARD, Awareness.DISTRACTED, Awareness.PREOCCUPIED)


def verse_seat(probe: Probe, combatant: str) -> Data | None:
    state = probe.state
    window = asked(state, combatant)
    if window is not None:
        if window.kind == WindowKind.PLANNING:
            return planning_seat(probe, state.combatants[combatant], window)
        return window_seat(probe, combatant, answers)
    if state.window is None and state.mode != Mode.LIVE and state.current == combatant:
        return turn_seat(probe, combatant, actions(probe, state.combatants[combatant]))
    return None


# --- V20: the planning window -------------------------------------------------------------


def planning_seat(probe: Probe, c: VerseCombatant, window: Window) -> Data | None:
    state = probe.state
    slots = slots_of(state, c.id)
    if not slots:
        return None
    undeclared = [i for i, slot in enumerate(slots) if declaration_at(state, slot) is None]
    turn = undeclared[0] if undeclared else 0
    of_turn = f" for turn {turn + 1} of {len(slots)}" if len(slots) > 1 else ""
    compose = {
        "label": f"Declare{of_turn}",
        "command": {"type": "Declare", "actor": c.id, "turn": turn, "actions": []},
        "into": "/actions",
        "most": MAX_DECLARED,
    }

    def declared(action: Command) -> Command:
        return Declare(c.id, (action,), turn)

    options = Offer(tested=declared, part=True).choices(probe, actions(probe, c))
    extra = [fixed("pass", "Pass: declare nothing this round", PassWindow(c.id, window.id))]
    for index, slot in enumerate(slots):
        if declaration_at(state, slot) is not None:
            which = f" for turn {index + 1}" if len(slots) > 1 else ""
            extra.append(
                fixed(
                    f"withdraw{index + 1}",
                    f"Withdraw the declaration{which}",
                    Withdraw(c.id, index),
                )
            )
    options += Offer().choices(probe, extra)
    return seat(c.id, window, options, compose)


# --- V25: a turn in Turn Based Combat -----------------------------------------------------


# --- V19-V23: answers -------------------------------------------------------------------


def answers(probe: Probe, window: Window, combatant: str, option: str) -> list[Data] | None:
    """The choices that answer `option` (None: the plain `Answer`, as for a Dodge)."""
    state = probe.state
    c: VerseCombatant = state.combatants[combatant]

    def answer(action: Command | None) -> Answer:
        return Answer(combatant, window.id, option, action)

    def carrying(action: Command) -> Command:
        return answer(action)

    carried = Offer(shown=carrying, below="/action")
    if option == BLOCK:
        item = blocking_item(c)
        return Offer().choices(probe, [fixed(BLOCK, f"Block with {item}", answer(None))])
    if option == HOLDER_DODGE:
        return Offer().choices(
            probe, [fixed(HOLDER_DODGE, "Dodge (it ends the hold)", answer(None))]
        )
    if option == HOLD:
        held = Offer(shown=carrying, below="/action", key="hold_", label="Held action: ")
        return held.choices(probe, actions(probe, c))
    if option == ADAPT:
        instead = Offer(shown=carrying, below="/action", key="adapt_", label="Instead: ")
        made = instead.choices(probe, actions(probe, c))
        return made + Offer().choices(probe, [fixed("give_up", "Give the action up", answer(None))])
    if option == COUNTER:
        return carried.choices(probe, [counter(probe, c, window.about)])
    if option == OPPORTUNITY:
        targets = c.opportunities if window.about == c.id else (window.about,)
        return carried.choices(probe, [opportunity(probe, c, t) for t in targets])
    if option == QUICK_RESPONSE:
        return carried.choices(probe, [knock_away(probe, c, window)])
    return None


def weapon_options(c: VerseCombatant, verb: str) -> tuple[Option, ...]:
    """Each weapon it may use now, and its bare hands (the engine keeps those it takes)."""
    found = [
        Option(w.name, f"{verb} with {w.name}") for w in c.sheet.weapons if c.can_wield(w.name)
    ]
    return (*found, Option("", f"{verb} with bare hands"))


def counter(probe: Probe, c: VerseCombatant, attacker: str) -> Candidate:
    """V22: a Counter attack on the attacker, with a weapon to choose."""
    return Candidate(
        f"{COUNTER}",
        f"Counter {probe.name(attacker)}",
        lambda weapon: Counter(c.id, attacker, weapon or ""),
        "weapon",
        "weapon",
        weapon_options(c, "Counter"),
    )


def opportunity(probe: Probe, c: VerseCombatant, target: str) -> Candidate:
    """V22 (and V18's Aggressive Stance): an attack of opportunity on `target`."""
    return Candidate(
        f"{OPPORTUNITY}:{target}",
        f"Attack of opportunity on {probe.name(target)}",
        lambda weapon: OpportunityAttack(c.id, target, weapon or ""),
        "weapon",
        "weapon",
        weapon_options(c, "Attack"),
    )


def knock_away(probe: Probe, c: VerseCombatant, window: Window) -> Candidate:
    """V22, a Quick Response: knock out of the actor's hand what its action uses. The
    action is on the stack, which every side sees; nothing else of its sheet is named."""
    subject = probe.state.pending[window.subject].action if window.subject >= 0 else None
    named = [getattr(subject, field, "") for field in ("item", "weapon")]
    items = tuple(
        Option(item, f"Knock {item} away") for item in named if isinstance(item, str) and item
    )
    return Candidate(
        QUICK_RESPONSE,
        f"Knock an item out of {probe.name(window.about)}'s hand",
        lambda item: KnockAway(c.id, window.about, item or ""),
        "item",
        "item",
        items,
    )


# --- the actions -------------------------------------------------------------------------


def actions(probe: Probe, c: VerseCombatant) -> list[Candidate]:
    """Every action Verse proposes for `c` (the module docstring); the engine keeps the
    ones it takes in each situation."""
    state = probe.state
    weapons = [w for w in c.sheet.weapons if c.can_wield(w.name)] or [UNARMED]
    found: list[Candidate] = []
    for weapon in weapons:
        found.append(attack(probe, c, weapon))
    found += ascend_attacks(probe, c, weapons)
    found += moves(probe, c)
    found += spells(probe, c)
    found += [
        Candidate(
            "stance",
            "Take a stance",
            lambda stance: SetStance(c.id, stance),
            "stance",
            "stance",
            tuple(Option(s, STANCES[s]) for s in Stance.ALL if s != c.stance),
        ),
        Candidate(
            "face",
            "Turn to face",
            lambda facing: Face(c.id, facing),
            "facing",
            "facing",
            tuple(
                Option(f, f"Face {f} ({f * 360 // state.grid.directions}°)")
                for f in range(state.grid.directions)
                if f != c.facing
            ),
        ),
        Candidate(
            "awareness",
            "Change awareness",
            lambda awareness: SetAwareness(c.id, awareness),
            "awareness",
            "awareness",
            tuple(
                Option(a, a.replace("_", " ").capitalize()) for a in AWARENESS if a != c.awareness
            ),
        ),
        Candidate(
            "stealth",
            "Sneak past",
            lambda observer: StealthCheck(c.id, observer),
            "observer",
            "observer",
            combatant_options(
                probe,
                (o for o in others(state, c.id) if foe(state, c, o)),
                "Sneak past ",
            ),
            blind=True,  # who sees the sneaker hangs on each foe's sight (R77: theirs)
        ),
        Candidate(
            "use_item",
            "Use an item",
            lambda item: UseItem(c.id, item),
            "item",
            "item",
            tuple(Option(i.name, f"Use {i.name}") for i in c.sheet.items),
        ),
        fixed("hold", "Hold action", HoldAction(c.id)),
    ]
    found += rides(probe, c)
    return found


def foe(state: Encounter, c: VerseCombatant, other: str) -> bool:
    return bool(state.combatants[other].side != c.side)


def attack(probe: Probe, c: VerseCombatant, weapon: Weapon) -> Candidate:
    name = weapon.name if weapon is not UNARMED else ""
    shown = name or "bare hands"
    return Candidate(
        f"attack:{name}" if name else "attack",
        f"Attack with {shown}",
        partial(Attack, c.id, weapon=name),
        "target",
        "target",
        combatant_options(probe, others(probe.state, c.id), "Attack ", f" with {shown}"),
    )


def ascend_attacks(probe: Probe, c: VerseCombatant, weapons: list[Weapon]) -> list[Candidate]:
    """V26: Ascend and Attack, at those on another level (only when any is)."""
    state = probe.state
    above = [o for o in others(state, c.id) if state.combatants[o].ascension != c.ascension]
    if not above:
        return []
    found = []
    for weapon in weapons:
        name = weapon.name if weapon is not UNARMED else ""
        shown = name or "bare hands"

        found.append(
            Candidate(
                f"ascend_attack:{name}" if name else "ascend_attack",
                f"Ascend and attack with {shown}",
                partial(AscendAttack, c.id, weapon=name),
                "target",
                "target",
                combatant_options(probe, above, "Ascend to ", f" and attack with {shown}"),
            )
        )
    return found


def moves(probe: Probe, c: VerseCombatant) -> list[Candidate]:
    """A Move to each cell within its speed this turn (V17, V18), around those standing
    in the way (`positions.blocker_at`); a change of Ascension level (V26)."""
    state = probe.state
    grid = state.grid
    found: list[Candidate] = []
    steps = movement_limit_ft(state, c) // grid.cell_ft
    if steps > 0 and not c.mounted_on:

        def free(cell: Cell) -> bool:
            return blocker_at(state, c, cell, c.ascension) is None

        paths = paths_from(grid, c.position, steps, free)
        found.append(
            Candidate(
                "move",
                "Move",
                lambda path: Move(c.id, path),
                "path",
                "cell",
                cell_options(paths, "Move to"),
                alike=len,  # R71, V17: a path of adjacent free cells counts by its length
            )
        )
    levels = min(MOST_LEVELS, climb_ft(state, c) // LEVEL_FT)
    if levels > 0 and not c.mounted_on:
        changes = [n for k in range(1, levels + 1) for n in (k, -k)]
        found.append(
            Candidate(
                "ascension",
                "Change Ascension level",
                lambda n: ChangeAscension(c.id, n),
                "levels",
                "levels",
                tuple(
                    Option(
                        n, f"{'Up' if n > 0 else 'Down'} {abs(n)} level{'s' if abs(n) > 1 else ''}"
                    )
                    for n in changes
                ),
            )
        )
    return found


def spells(probe: Probe, c: VerseCombatant) -> list[Candidate]:
    """Each spell it knows at its minimum cost (V11), and the charge it carries (V12)."""
    state = probe.state
    found: list[Candidate] = []
    for spell in c.sheet.spells:
        if affects_caster_only(spell):
            found.append(
                fixed(f"cast:{spell.name}", f"Cast {spell.name}", CastSpell(c.id, spell.name))
            )
            continue
        verb = "at" if spell.shape == SpellShape.SINGLE else "toward"

        found.append(
            Candidate(
                f"cast:{spell.name}",
                f"Cast {spell.name}",
                partial(CastSpell, c.id, spell.name),
                "targets",
                "target",
                combatant_options(
                    probe,
                    (*others(state, c.id), c.id),
                    f"Cast {spell.name} {verb} ",
                    alone=True,
                ),
            )
        )
    if c.charging is not None:
        found.append(fixed("charge", f"Charge {c.charging.spell}", ChargeSpell(c.id)))
    return found


def rides(probe: Probe, c: VerseCombatant) -> list[Candidate]:
    """Mount a ride of its side, or dismount into a cell next to its ride ("Ride Combat")."""
    state = probe.state
    if c.mounted_on:
        ride = state.combatants.get(c.mounted_on)
        if ride is None:
            return []
        cells = state.grid.neighbours(ride.position)
        return [
            Candidate(
                "dismount",
                "Dismount",
                lambda cell: Dismount(c.id, cell),
                "cell",
                "cell",
                tuple(Option(cell, f"Step down to ({cell.x}, {cell.y})") for cell in cells),
            )
        ]
    mounts = [o for o in others(state, c.id) if state.combatants[o].sheet.is_ride]
    if not mounts:
        return []
    return [
        Candidate(
            "mount",
            "Mount",
            lambda ride: Mount(c.id, ride),
            "ride",
            "ride",
            combatant_options(probe, mounts, "Mount "),
        )
    ]


register_choices("verse", verse_seat)
