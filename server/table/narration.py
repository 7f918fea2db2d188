"""Events as sentences, from the data an audience receives: the text of its log lines.

Each audience's log (`log.py`) reads the fight from the event as that audience gets it
(`server.engine.views.event_view`, already redacted), so a line can say no more than
the raw event does: a roll reads `d20 14 + Strength 3 + Training 2 = 19`, an attack
`Goblin (g1) attacks Ayla with scimitar: d20 6 + Strength 2 + Training 1 = 9 vs PD 15:
miss`. Names come from the audience's table (`log.Teller`). These words were the terminal
client's until protocol 2 moved them here: no client narrates any more, every one
draws these lines.

The events every rule system shares (turns, windows, the action stack, pauses, rewinds,
the end of the fight) are told here; each rule system tells its own (`verse_narration.py`,
`tael_narration.py`), found by the room's ruleset (`TELLINGS`), or in every known one
when none is given (record names are unique across rule systems). An event without a
narrator (of a ruleset with no words here) still reads, compactly, as its type and
fields, so nothing that happens is hidden from the log. Redacted events read as such:
another side's declaration is "declares (hidden until revealed)", another side's Tael
preparation "announces a prepared move (hidden until it triggers)", and numbers a side
may not see (hit points, a Willpower DC) are left out; another side's roll reads by its
faces (`d20 14 (modifiers hidden)`) or as `a hidden roll`, as the room's
`roll_visibility` shows it (R77), and another side's place in the turn order without
its initiative.
"""

from __future__ import annotations

from dataclasses import replace

from server.table.tael_narration import TAEL_TELLING
from server.table.telling import (
    Data,
    Knows,
    Names,
    Narrator,
    Narrators,
    Story,
    Telling,
    Turns,
    compact,
    describe_roll,
    reason,
    who,
)
from server.table.verse_narration import VERSE_TELLING

__all__ = [
    "TELLINGS",
    "compact",
    "describe_roll",
    "narrate",
    "narrated",
    "tell",
    "tellings",
]

TELLINGS: dict[str, Telling] = {"verse": VERSE_TELLING, "tael": TAEL_TELLING}
"""Each rule system's narration by the name a room gives its ruleset."""


def tellings(ruleset: str | None = None) -> tuple[Telling, ...]:
    """The narration of `ruleset`, or of every known rule system when the room is not
    said (record names are unique across rule systems, so each event finds its own); a
    ruleset with no words here has none (its events read compactly)."""
    if ruleset is None:
        return tuple(TELLINGS.values())
    found = TELLINGS.get(ruleset)
    return () if found is None else (found,)


SHARED = Narrators()
"""The narrators of the events the engine shares between rule systems."""
tells = SHARED.tells


def narrate(
    event: Data,
    names: Names = str,
    ruleset: str | None = None,
    *,
    turns: Turns | None = None,
    knows: Knows | None = None,
    mode: str = "",
) -> str:
    """The text for `event` (several lines for some); `names` turns an id into a name;
    `ruleset` is the room's (every known rule system when not given); `turns`, `knows`
    and `mode` are what the screen knows of the round (`Story`), when it knows it."""
    story = Story(names, tellings(ruleset), mode=mode)
    if turns is not None:
        story = replace(story, turns=turns)
    if knows is not None:
        story = replace(story, knows=knows)
    return tell(event, story)


def tell(event: Data, story: Story) -> str:
    """The text for `event` told with `story`: `narrate` for a caller that keeps its
    `Story` (a log's `Teller` tells every event of a table with one)."""
    kind = str(event.get("$type", ""))
    narrator = SHARED.get(kind) or _own_narrator(kind, story)
    if narrator is None:
        return compact(event)
    try:
        return narrator(event, story)
    except (KeyError, TypeError, ValueError, AttributeError):  # a shape this file predates
        return compact(event)


def _own_narrator(kind: str, story: Story) -> Narrator | None:
    """The narrator a rule system in play has for its own event type `kind`."""
    for telling in story.tellings:
        narrator = telling.events.get(kind)
        if narrator is not None:
            return narrator
    return None


def narrated(ruleset: str | None = None) -> frozenset[str]:
    """The event types with a narrator of their own (any other prints compactly)."""
    types = set(SHARED)
    for telling in tellings(ruleset):
        types |= set(telling.events)
    return frozenset(types)


def _options(options: list[str]) -> str:
    if not options:
        return ""
    if len(options) == 1:
        return options[0]
    return ", ".join(options[:-1]) + " or " + options[-1]


# --- the round ------------------------------------------------------------------------


@tells("InitiativeRolled")
def _initiative(event: Data, story: Story) -> str:
    names = story.names
    lines = ["Initiative:"]
    for made in event["rolls_made"]:
        lines.append(f"  {names(made['combatant'])}: {describe_roll(made['roll'])}")
    for made in event.get("tiebreaks", []):
        lines.append(f"  tie re-roll, {names(made['combatant'])}: {describe_roll(made['roll'])}")
    order = ", ".join(
        f"{names(s['combatant'])} {s['initiative']}" if "initiative" in s else names(s["combatant"])
        for s in event["order"]
    )
    lines.append(f"Turn order: {order}")
    return "\n".join(lines)


@tells("SettingChanged")
def _setting(event: Data, story: Story) -> str:
    name = str(event["name"]).replace("_", " ")
    return f"The GM sets {name} to {event['value']} (was {event.get('previous')})"


@tells("ConditionRuleChanged")
def _condition_rule(event: Data, story: Story) -> str:
    """The GM changed the conditions table (V27, TR40)."""
    rule = event.get("rule")
    if not isinstance(rule, dict):
        return f"The GM takes {event['name']} out of the conditions table: it does nothing now"
    verb = "changes" if event.get("previous") else "adds"
    return f"The GM {verb} the house rule for {event['name']}: {describe_rule(rule)}"


def describe_rule(rule: Data) -> str:
    """An entry of the conditions table in a line: `attack -2, defence.pd x0.5, loses
    swift, 1d4 damage a round, save constitution DC 10 ends it (it bleeds)`."""
    signs = {"multiply": "x", "downgrade": "at most ", "upgrade": "at least ", "override": "= "}
    parts = []
    for change in rule.get("changes", []):
        mode, value = change.get("mode"), change.get("value")
        amount = f"{value:+d}" if mode == "add" and isinstance(value, int) else f"{value}"
        parts.append(f"{change.get('key')} {signs.get(str(mode), '')}{amount}")
    if rule.get("loses"):
        parts.append("loses " + ", ".join(str(w) for w in rule["loses"]))
    if rule.get("damage"):
        parts.append(f"{rule['damage']} damage a round")
    for ability, dice in rule.get("drain", []):
        parts.append(f"{dice} {ability} lost a round")
    if rule.get("rounds"):
        parts.append(f"lasts {rule['rounds']} round(s) when laid without a duration")
    if rule.get("turns"):
        parts.append(f"lasts {rule['turns']} of its turn(s) when laid without a duration")
    save = rule.get("save")
    if isinstance(save, dict):
        parts.append(f"save {save.get('ability')} DC {save.get('dc')} ends it")
    text = ", ".join(parts) or "nothing"
    return f"{text} ({rule['text']})" if rule.get("text") else text


@tells("ConditionWarded")
def _condition_warded(event: Data, story: Story) -> str:
    """A sheet's immunity kept a condition off (V27, R81; Tael TR41)."""
    why = f" ({event['reason']})" if event.get("reason") else ""
    return f"{story.names(event['combatant'])} is immune to {event['condition']}{why}"


@tells("ConditionSaveRolled")
def _condition_save(event: Data, story: Story) -> str:
    """A save the conditions table gives (V27, TR40); on a success the condition's
    own ending follows."""
    result = "it ends" if event["success"] else "it goes on"
    return (
        f"{story.names(event['combatant'])}'s {event['condition']} save: "
        f"{describe_roll(event['roll'])} vs DC {event['dc']}: {result}"
    )


@tells("RoundStarted")
def _round_started(event: Data, story: Story) -> str:
    return f"Round {event['round']}"


@tells("RoundEnded")
def _round_ended(event: Data, story: Story) -> str:
    return f"End of round {event['round']}"


@tells("TurnStarted")
def _turn_started(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])}'s turn"


@tells("TurnEnded")
def _turn_ended(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} ends the turn"


# --- windows and the action stack (V21-V24, T2) ---------------------------------------


@tells("WindowOpened")
def _window_opened(event: Data, story: Story) -> str:
    window = event["window"]
    kind = window["kind"]
    about = f" to {story.names(window['about'])}" if window.get("about") else ""
    asks = []
    for ask in window["asked"]:
        options = _options(list(ask.get("options", [])))
        asked = story.names(ask["combatant"])
        asks.append(f"{asked} may {options or 'answer'}")  # another side's options are hidden
    seconds = window.get("seconds")
    length = f", {seconds:g}s" if isinstance(seconds, int | float) else ""
    return f"Window {window['id']} opens ({kind}{about}{length}): {'; '.join(asks) or 'nobody'}"


@tells("WindowClosed")
def _window_closed(event: Data, story: Story) -> str:
    return f"Window {event['window']} closes{reason(event.get('reason'))}"


@tells("Answered")
def _answered(event: Data, story: Story) -> str:
    action = event.get("action")
    what = f": {story.action(action)}" if action else ""
    return f"{story.names(event['combatant'])} {story.answer(event['option'])}{what}"


@tells("Passed")
def _passed(event: Data, story: Story) -> str:
    return f"{story.names(event['combatant'])} lets window {event['window']} pass"


@tells("Paused")
def _paused(event: Data, story: Story) -> str:
    return f"Paused by {who(event['by'], story.names)}: every timer stops"


@tells("Resumed")
def _resumed(event: Data, story: Story) -> str:
    if event.get("refused"):
        return "The GM refuses the pause: the timers ran on as if it never happened"
    return f"Resumed by {who(event['by'], story.names)}: the timers go on"


@tells("ActionPushed")
def _pushed(event: Data, story: Story) -> str:
    pending = event["pending"]
    return f"{story.names(pending['actor'])} is about to {story.action(pending['action'])}"


@tells("ActionStarted")
def _started(event: Data, story: Story) -> str:
    return f"{story.names(event['actor'])} goes: {story.action(event['action'])}"


@tells("ActionFinished")
def _finished(event: Data, story: Story) -> str:
    return f"{story.names(event['actor'])} is done"


@tells("ActionLost")
def _lost(event: Data, story: Story) -> str:
    action = story.action(event.get("action"))
    return f"{story.names(event['actor'])} loses the action ({action}){reason(event.get('reason'))}"


# --- GM overrides and the end of the fight -------------------------------------------


@tells("Rewound")
def _rewound(event: Data, story: Story) -> str:
    return f"The GM rewinds the fight to after event {event['to_version']}"


@tells("CombatEnded")
def _combat_ended(event: Data, story: Story) -> str:
    """The GM's `end combat` (T10 in Tael; in Verse whenever the GM judges it over):
    the sides beaten (`defeated`: nobody on them left able to fight) and which of those
    fell (`fallen`: all dead, in Tael dead or fainted). The event names sides, not
    combatants: a side with one goblin dead and one standing is not beaten, and the
    text says so rather than "nobody" out of the fight."""
    defeated = [str(side) for side in event.get("defeated", [])]
    fallen = {str(side) for side in event.get("fallen", [])}
    ends = (
        "The GM ends the fight, as everyone agreed to stop"
        if event.get("agreed")
        else ("The GM ends the fight")
    )
    if not defeated:
        return f"{ends}: no side is beaten (each still has someone able to fight)"
    sides = ", ".join(f"{side} (all fallen)" if side in fallen else side for side in defeated)
    label = "side" if len(defeated) == 1 else "sides"
    return f"{ends}: beaten, with nobody left able to fight: {label} {sides}"
