"""Verse Master approval: Counter and Quick Response Actions without the feat (R73).

"Traditionally Counter Feats are required to gain this action or Verse Master
approval"; "Typically Quick Response Actions require feats or Verse Master approval".
The GM's approval is an override like the others: `ApproveFeat` gives a combatant the
option as if its sheet had a feat of that kind (a feat named "Verse Master approval"),
until `WithdrawApproval` takes it back. A feat the sheet has of its own is never taken.
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import DiceCup
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.overrides import GMOverride
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import Feat, FeatKind
from server.engine.state import Encounter

APPROVAL = "Verse Master approval"
APPROVABLE = (FeatKind.COUNTER, FeatKind.QUICK_RESPONSE)


@record
class ApproveFeat(GMOverride):
    """Let `combatant` take Counter (`"counter"`) or Quick Response (`"quick_response"`)
    Actions without the feat (R73)."""

    combatant: str
    kind: str


@record
class WithdrawApproval(GMOverride):
    """Take back an approval `ApproveFeat` gave (R73)."""

    combatant: str
    kind: str


@record
class FeatApproved(Event):
    combatant: str
    kind: str


@record
class ApprovalWithdrawn(Event):
    combatant: str
    kind: str


def _approval(c: VerseCombatant, kind: str) -> Feat | None:
    for feat in c.sheet.feats:
        if feat.name == APPROVAL and feat.kind == kind:
            return feat
    return None


def _kind(kind: object) -> str:
    if kind not in APPROVABLE:
        names = " or ".join(str(k) for k in APPROVABLE)
        raise CommandRefused(INVALID_COMMAND, f"the GM approves {names}, not {kind!r}")
    return str(kind)


@VERSE.decides(ApproveFeat)
def decide_approve_feat(state: Encounter, command: ApproveFeat, cup: DiceCup) -> list[Event]:
    c: VerseCombatant = combatant(state, command.combatant)
    kind = _kind(command.kind)
    if c.sheet.has_feat(kind):
        raise CommandRefused(INVALID_COMMAND, f"{c.id} can already take {kind} actions")
    return [FeatApproved(c.id, kind)]


@VERSE.decides(WithdrawApproval)
def decide_withdraw_approval(
    state: Encounter, command: WithdrawApproval, cup: DiceCup
) -> list[Event]:
    c: VerseCombatant = combatant(state, command.combatant)
    kind = _kind(command.kind)
    if _approval(c, kind) is None:
        raise CommandRefused(INVALID_COMMAND, f"{c.id} has no approval for {kind} actions")
    return [ApprovalWithdrawn(c.id, kind)]


@VERSE.applies(FeatApproved)
def apply_feat_approved(state: Encounter, event: FeatApproved) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    feats = (*c.sheet.feats, Feat(APPROVAL, FeatKind(event.kind)))
    return state.with_combatant(evolve(c, sheet=evolve(c.sheet, feats=feats)))


@VERSE.applies(ApprovalWithdrawn)
def apply_approval_withdrawn(state: Encounter, event: ApprovalWithdrawn) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    feats = tuple(f for f in c.sheet.feats if not (f.name == APPROVAL and f.kind == event.kind))
    return state.with_combatant(evolve(c, sheet=evolve(c.sheet, feats=feats)))
