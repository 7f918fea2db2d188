"""World of Tael's choices: a turn's Action Phase (T2-T9), prepared moves (T2).

Tael is played turn by turn (TR1). What it proposes, the engine then filters
(`choices.Probe`):

* **its own turn, no window open** (T2): an Attack Action with each weapon in its hands
  and the other hand's follow-up (T3, T5); a Punch and the Punch that may follow it
  (T9); each spell at one combatant (T4: a spell of several targets is offered at one
  of them); walking to each tile a path through allies reaches with the tiles left
  this turn (the text's "Movement"); Dash, Sprint, Brace and Hide (T9); helping up a
  fainted ally (T8); the generic bonus actions (T9) as an Action and as a Bonus
  Action: Surrender, picking up a weapon it dropped, a Roleplay skill check in one of
  its sheet's skills, and taking another carried weapon in the main or the off hand;
  a stance (T7, at the start of the turn); and `EndTurn`.
* **a reaction window that asks it** (T2): each prepared move of its ask; a move that
  strikes back with each weapon in its hands (the main hand's when none is named);
  and passing.
* **its Preparation Phase, with nothing announced yet** (T2): announcing one of its
  prepared moves (`Prepare`), which it may also leave unannounced.
"""

from __future__ import annotations

from functools import partial

from server.engine.core import Command
from server.engine.flow import Window
from server.engine.grid import Cell
from server.engine.rulesets.tael.attacks import AttackAction, PreparedStrike
from server.engine.rulesets.tael.bonus import EquipWeapon, PickUp, Punch, SkillCheck, Surrender
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.fainting import Help
from server.engine.rulesets.tael.generic import Brace, Dash, Hide, Sprint
from server.engine.rulesets.tael.movement import MoveTiles, allowance
from server.engine.rulesets.tael.positions import occupants
from server.engine.rulesets.tael.preparations import Prepare, preparation_open
from server.engine.rulesets.tael.sheet import Stance
from server.engine.rulesets.tael.spells import SpellAction
from server.engine.rulesets.tael.stances import ChooseStance
from server.engine.stack import Answer
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


def tael_seat(probe: Probe, combatant: str) -> Data | None:
    state = probe.state
    c: TaelCombatant = state.combatants[combatant]
    if asked(state, combatant) is not None:
        return window_seat(probe, combatant, answers)
    if state.window is None and state.current == combatant:
        return turn_seat(probe, c.id, actions(probe, c))
    if state.current != combatant and preparation_open(c) and not c.prepared:
        return preparing_seat(probe, c)
    return None


# --- T2: the Action Phase ---------------------------------------------------------------


def actions(probe: Probe, c: TaelCombatant) -> list[Candidate]:
    """Every action Tael proposes for `c` on its turn (the module docstring)."""
    state = probe.state
    found: list[Candidate] = []
    for weapon in c.hands:
        found.append(
            Candidate(
                f"attack:{weapon}",
                f"Attack with {weapon}",
                partial(AttackAction, c.id, weapon=weapon),
                "target",
                "target",
                combatant_options(probe, others(state, c.id), "Attack ", f" with {weapon}"),
            )
        )
    if c.turn.off_hand:
        other = c.turn.off_hand
        found.append(
            Candidate(
                "off_hand",
                f"Attack with the other hand ({other})",
                lambda target: AttackAction(c.id, target, "", off_hand=True),
                "target",
                "target",
                combatant_options(probe, others(state, c.id), "Attack ", f" with {other}"),
            )
        )
    for as_bonus, key, said in ((False, "punch", "Punch"), (True, "punch_bonus", "Punch again")):
        found.append(
            Candidate(
                key,
                f"{said} (Bonus Action)" if as_bonus else said,
                partial(Punch, c.id, as_bonus=as_bonus),
                "target",
                "target",
                combatant_options(probe, others(state, c.id), f"{said} "),
            )
        )
    for spell in c.sheet.spells:
        found.append(
            Candidate(
                f"cast:{spell.name}",
                f"Cast {spell.name}",
                partial(SpellAction, c.id, spell.name),
                "targets",
                "target",
                combatant_options(
                    probe,
                    others(state, c.id),
                    f"Cast {spell.name} at ",
                    alone=True,
                ),
            )
        )
    found += walks(probe, c)
    found += [
        fixed("dash", "Dash", Dash(c.id)),
        fixed("sprint", "Sprint", Sprint(c.id)),
        fixed("brace", "Brace", Brace(c.id)),
        fixed("hide", "Hide", Hide(c.id)),
        Candidate(
            "help",
            "Help up",
            lambda target: Help(c.id, target),
            "target",
            "ally",
            combatant_options(
                probe,
                (o for o in others(state, c.id) if state.combatants[o].side == c.side),
                "Help ",
                " up",
            ),
        ),
        Candidate(
            "stance",
            "Change stance",
            lambda stance: ChooseStance(c.id, stance),
            "stance",
            "stance",
            tuple(
                Option(s.value, f"{s.value.capitalize()} stance") for s in Stance if s != c.stance
            ),
        ),
    ]
    for as_bonus in (False, True):
        found += bonus_actions(c, as_bonus)
    return found


def bonus_actions(c: TaelCombatant, as_bonus: bool) -> list[Candidate]:
    """T9's generic bonus actions, spent as an Action or (`as_bonus`) a Bonus Action."""
    suffix, said = ("_bonus", " (Bonus Action)") if as_bonus else ("", "")
    carried = [w.name for w in c.sheet.weapons if w.name not in c.dropped]
    return [
        fixed(f"surrender{suffix}", f"Surrender{said}", Surrender(c.id, as_bonus)),
        Candidate(
            f"pick_up{suffix}",
            f"Pick up a weapon{said}",
            lambda weapon: PickUp(c.id, weapon, as_bonus),
            "weapon",
            "weapon",
            tuple(Option(w, f"Pick up {w}") for w in c.dropped),
        ),
        Candidate(
            f"skill{suffix}",
            f"Skill check{said}",
            lambda skill: SkillCheck(c.id, skill, as_bonus),
            "skill",
            "skill",
            tuple(Option(s, s.capitalize()) for s, _ in c.sheet.skills),
        ),
        Candidate(
            f"main_hand{suffix}",
            f"Take a weapon in the main hand{said}",
            lambda weapon: EquipWeapon(c.id, weapon, c.off_hand, as_bonus),
            "main_hand",
            "weapon",
            tuple(Option(w, f"Take {w} in the main hand") for w in carried if w not in c.hands),
        ),
        Candidate(
            f"off_hand{suffix}",
            f"Take a weapon in the off hand{said}",
            lambda weapon: EquipWeapon(c.id, c.main_hand, weapon, as_bonus),
            "off_hand",
            "weapon",
            tuple(Option(w, f"Take {w} in the off hand") for w in carried if w not in c.hands),
        ),
    ]


def walks(probe: Probe, c: TaelCombatant) -> list[Candidate]:
    """Walking ("Movement"): to each tile within the tiles left this turn, through
    tiles where only allies stand (`positions.occupants`; the engine says where a walk
    may end)."""
    state = probe.state
    tiles, _ = allowance(state, c)
    left = tiles - c.turn.moved
    if left <= 0:
        return []

    def passable(cell: Cell) -> bool:
        return all(o.side == c.side for o in occupants(state, cell, besides=c.id))

    paths = paths_from(state.grid, c.position, left, passable)
    return [
        Candidate(
            "move",
            "Move",
            lambda path: MoveTiles(c.id, path),
            "path",
            "tile",
            cell_options(paths, "Move to"),
        )
    ]


# --- T2: prepared moves -----------------------------------------------------------------


def answers(probe: Probe, window: Window, combatant: str, option: str) -> list[Data] | None:
    """A move that strikes back, with each weapon in hand; any other move as it is."""
    c: TaelCombatant = probe.state.combatants[combatant]
    move = c.sheet.preparation(option)
    if move is None or not move.strikes_back:
        return None
    attacker = window.about

    def carrying(strike: Command) -> Command:
        return Answer(combatant, window.id, option, strike)

    strike = Candidate(
        f"{option}",
        f"{option}: strike back at {probe.name(attacker)}",
        lambda weapon: PreparedStrike(combatant, attacker, weapon),
        "weapon",
        "weapon",
        tuple(Option(w, f"Strike back with {w}") for w in c.hands),
    )
    made = Offer(shown=carrying, below="/action").choices(probe, [strike])
    if made:
        return made
    plain = fixed(option, f"{option}: strike back", Answer(combatant, window.id, option))
    return Offer().choices(probe, [plain])


def preparing_seat(probe: Probe, c: TaelCombatant) -> Data | None:
    """T2: announce the prepared move of this Preparation Phase (or keep it open)."""
    announce = Candidate(
        "prepare",
        "Announce a prepared move",
        lambda move: Prepare(c.id, move),
        "move",
        "move",
        tuple(Option(m.name, f"Prepare {m.name}") for m in c.sheet.preparations),
    )
    return seat(c.id, None, Offer().choices(probe, [announce]))


register_choices("tael", tael_seat)
