"""Folding an event into the view a client holds: what the event changed of the fight.

A client has no rules and no dice, but it does not need them to keep its view current:
every event states what happened (`DamageDealt` says how much went to health and how
much to armour, `Moved` the path, `StatusGained` the status), and the engine's appliers
(`server/engine/rulesets/*/`, each event's `apply`) only carry it into the state. The
client mirrors that part of them: `fold(state, event, folding, doubts)` changes the
view held as the event says, so that `look` shows the health, positions and conditions
of now, not of the moment the client connected.

What is kept current: the window, the pause, the round, the turn and the turn order,
the version, the declarations, the roster (combatants added and removed), and of each
combatant what the table looks at, as each rule system lists it (`verse_folding.py`,
`tael_folding.py`: a Verse spell being charged among them). The rest of the view (the
action/reaction stack, what a Verse turn has spent, a combatant's attacks of
opportunity) stays as the last snapshot said: no screen of this program shows it.

Where an event does not say enough for this audience (another side's health is only a
coarse `health_state`, and an event without one leaves it unknown), the fold keeps its
best guess and records a doubt (`Doubts`): the screen shows that value as approximate
rather than as a fact. An event of a kind nobody here knows how to fold is recorded as
a doubt about the whole view. A snapshot or a `Rewound` event, which carry a whole
view, clear every doubt.

The views held come from the messages they arrived in, which the screen may still read:
a fold never changes a dict in place, it puts changed copies in the view
(`changing`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Data = dict[str, Any]


@dataclass
class Doubts:
    """What the folded view may have wrong since the last whole view (snapshot or
    rewind): combatants' fields no event stated (`fields`, by combatant id), and the
    kinds of events that came and could not be folded (`events`)."""

    fields: dict[str, set[str]] = field(default_factory=dict)
    events: set[str] = field(default_factory=set)

    def doubt(self, combatant: str, *names: str) -> None:
        self.fields.setdefault(combatant, set()).update(names)

    def settle(self, combatant: str, *names: str) -> None:
        """An event stated these fields outright: they are known again."""
        doubted = self.fields.get(combatant)
        if doubted is None:
            return
        doubted.difference_update(names)
        if not doubted:
            del self.fields[combatant]

    def about(self, combatant: str) -> set[str]:
        """The fields of `combatant` the view may have wrong."""
        return set(self.fields.get(combatant, ()))

    def forget(self, combatant: str) -> None:
        self.fields.pop(combatant, None)

    def clear(self) -> None:
        self.fields.clear()
        self.events.clear()

    def __bool__(self) -> bool:
        return bool(self.fields or self.events)


Fold = Callable[[Data, Data, Doubts], None]
"""Changes `state` (the view) as `event` says; records in `Doubts` what it cannot know."""


@dataclass(frozen=True)
class Folding:
    """One rule system's folds: how each of its events changes the view (`folds`, by
    `$type`; a shared event may have one here too, run after the shared one), and the
    events it knows change nothing the view keeps current (`unchanged`)."""

    folds: Mapping[str, Fold] = field(default_factory=dict)
    unchanged: frozenset[str] = frozenset()

    def knows(self, kind: str) -> bool:
        return kind in self.folds or kind in self.unchanged


NO_FOLDING = Folding()
"""A rule system this program does not know: only the shared events fold."""


def fold(state: Data, event: Data, folding: Folding, doubts: Doubts) -> None:
    """Fold `event` into `state` (see the module's docstring)."""
    kind = str(event.get("$type", ""))
    if isinstance(state.get("version"), int):
        state["version"] += 1  # one version per event (the engine's `core.apply`)
    shared = SHARED.get(kind)
    own = folding.folds.get(kind)
    if shared is not None:
        shared(state, event, doubts)
    if own is not None:
        own(state, event, doubts)
    if shared is None and own is None and kind not in SHARED_UNCHANGED | folding.unchanged:
        doubts.events.add(kind)


# --- helpers the rule systems' folds share ------------------------------------------------


def changing(state: Data, combatant: str) -> Data | None:
    """Combatant `combatant` as a fresh copy put in the view in place of the old one, to
    change; None when the view does not hold it."""
    combatants = state.get("combatants")
    if not isinstance(combatants, dict) or not isinstance(combatants.get(combatant), dict):
        return None
    combatants = dict(combatants)
    fresh = dict(combatants[combatant])
    combatants[combatant] = fresh
    state["combatants"] = combatants
    return fresh


def named(state: Data, event: Data, key: str = "combatant") -> tuple[str, Data] | None:
    """The combatant `event[key]` names and a copy of it to change (`changing`); None
    when the view does not hold it."""
    who = str(event.get(key, ""))
    c = changing(state, who)
    return None if c is None else (who, c)


def cannot_fold(doubts: Doubts, event: Data) -> None:
    """`event` names something the view does not hold: the whole view is in doubt."""
    doubts.events.add(str(event.get("$type")))


def each_combatant(state: Data) -> list[tuple[str, Data]]:
    """Every combatant as a fresh copy (for a change to all, like a round's end)."""
    combatants = state.get("combatants")
    if not isinstance(combatants, dict):
        return []
    fresh = {cid: dict(c) for cid, c in combatants.items() if isinstance(c, dict)}
    state["combatants"] = {**combatants, **fresh}
    return list(fresh.items())


def copying(key: str, **fields: str) -> Fold:
    """A fold that copies the event's fields into the combatant named by `event[key]`:
    `fields` maps the combatant's field to the event's, or to a value written `=value`
    (`mounted_on="="` clears it). A field the event does not carry (a redacted
    override has no numbers) is left as it is."""

    def fold_it(state: Data, event: Data, doubts: Doubts) -> None:
        who = str(event.get(key, ""))
        c = changing(state, who)
        if c is None:
            doubts.events.add(str(event.get("$type")))
            return
        for name, source in fields.items():
            if source.startswith("="):
                c[name] = source[1:]
            elif source in event:
                c[name] = event[source]
            else:
                continue
            doubts.settle(who, name)

    return fold_it


def health_state_from(c: Data, event: Data, combatant: str, doubts: Doubts) -> bool:
    """Another side's coarse health as the event states it (`health_state`), if it
    does and the view shows that combatant coarsely; True when it was stated."""
    if "health_state" not in event or "health_state" not in c:
        return False
    c["health_state"] = event["health_state"]
    doubts.settle(combatant, "health_state")
    return True


# --- the events every rule system shares (server/engine/stack.py, turns.py, commands.py) ---


def _rewound(state: Data, event: Data, doubts: Doubts) -> None:
    """The restored view replaces the one held, with what must not go back in time
    (the engine's `apply_rewound`): the version, the pause (a fight taken back from its
    end is paused by the GM), and window numbers (the restored window gets the next
    number, never an old one)."""
    restored = event.get("state")
    if not isinstance(restored, dict):
        doubts.events.add("Rewound")
        return
    version, paused_by = state.get("version"), state.get("paused_by", "")
    if state.get("phase") == "ended" and restored.get("phase") == "combat":
        paused_by = "gm"  # taken back from its end, the fight waits for the GM (R70)
    opened = max(_int(state.get("windows_opened")), _int(restored.get("windows_opened")))
    window = restored.get("window")
    if isinstance(window, dict):
        opened += 1
        window = {**window, "id": opened}
    state.clear()
    state.update(restored)
    state.update(window=window, windows_opened=opened, paused_by=paused_by)
    if isinstance(version, int):
        state["version"] = version  # `fold` counted the Rewound event itself already
    doubts.clear()


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _window_opened(state: Data, event: Data, doubts: Doubts) -> None:
    window = event.get("window")
    state["window"] = window
    if isinstance(window, dict) and isinstance(window.get("id"), int):
        state["windows_opened"] = window["id"]


def _window_closed(state: Data, event: Data, doubts: Doubts) -> None:
    window = state.get("window")
    if isinstance(window, dict) and window.get("id") == event.get("window"):
        state["window"] = None


def _answered(state: Data, event: Data, doubts: Doubts) -> None:
    """Someone answered or passed: the window no longer waits for it."""
    window = state.get("window")
    who = event.get("combatant")
    if isinstance(window, dict) and window.get("id") == event.get("window"):
        answered = list(window.get("answered", []))
        if who not in answered:
            state["window"] = {**window, "answered": [*answered, who]}


def _paused(state: Data, event: Data, doubts: Doubts) -> None:
    state["paused_by"] = event.get("by", "")


def _resumed(state: Data, event: Data, doubts: Doubts) -> None:
    state["paused_by"] = ""


def _initiative(state: Data, event: Data, doubts: Doubts) -> None:
    state["turn_order"] = event.get("order", [])
    state["phase"] = "combat"


def _round_started(state: Data, event: Data, doubts: Doubts) -> None:
    state["round"] = event.get("round")
    state["turn"] = -1
    state["turn_over"] = False


def _turn_started(state: Data, event: Data, doubts: Doubts) -> None:
    state["turn"] = event.get("turn")
    state["turn_over"] = False


def _setting_changed(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM changed a room setting (every ruleset's `SetSetting`)."""
    state["settings"] = {**state.get("settings", {}), str(event.get("name")): event.get("value")}


def _condition_rule_changed(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM changed the conditions table (V27, TR40, the engine's
    `apply_condition_rule_changed`): the entry of that name, whatever its case, is
    replaced in place, added last, or taken out."""
    name = str(event.get("name", "")).casefold()
    rules = [r for r in state.get("condition_rules", []) if isinstance(r, dict)]
    rule = event.get("rule")
    at = next((i for i, r in enumerate(rules) if str(r.get("name", "")).casefold() == name), None)
    if rule is None:
        rules = [r for i, r in enumerate(rules) if i != at]
    elif at is None:
        rules.append(rule)
    else:
        rules[at] = rule
    state["condition_rules"] = rules


def _combat_ended(state: Data, event: Data, doubts: Doubts) -> None:
    """The GM ended the fight (every ruleset): nothing is left open, paused or pending
    (the engine's `apply_combat_ended`)."""
    state["phase"] = "ended"
    state["window"] = None
    state["paused_by"] = ""
    for key, empty in (("declarations", []), ("pending", []), ("resolving", "")):
        if key in state:
            state[key] = empty


SHARED: dict[str, Fold] = {
    "Rewound": _rewound,
    "WindowOpened": _window_opened,
    "WindowClosed": _window_closed,
    "Answered": _answered,
    "Passed": _answered,
    "Paused": _paused,
    "Resumed": _resumed,
    "InitiativeRolled": _initiative,
    "RoundStarted": _round_started,
    "TurnStarted": _turn_started,
    "CombatEnded": _combat_ended,
    "SettingChanged": _setting_changed,
    "ConditionRuleChanged": _condition_rule_changed,
}
"""The shared events' folds (docs/protocol.md, "Events")."""

SHARED_UNCHANGED = frozenset(
    {"ActionStarted", "ActionFinished", "ActionLost", "ConditionSaveRolled", "ConditionWarded"}
)
"""Shared events that change only the action/reaction stack, which the view does not
keep current, or nothing at all (a save's roll: the ending that follows a success folds)."""
