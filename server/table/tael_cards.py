"""How a World of Tael combatant is drawn: its `Card`, from its redacted plain data.

The data is what `server.engine.rulesets.tael.views` lets this audience see: the whole
combatant (the GM; its own or an allied side, less the GM's notes) or what the table
sees of a foe (where it stands, its stance, what is in its hands and on the ground,
its status effects, its flags, where it is with its preparation, a coarse
`health_state`). The card reads each field only where the data holds it.

* `health` is hit points (an audience that sees them); `health_word` the views' own
  `health_state`, given in a foe's data and worked out by the same function otherwise.
  Tael has no Mana: no `mana` bar.
* `active` is `TaelCombatant.active`: neither dead nor fainted (T8). A surrendered
  combatant (T9) still takes its turns and may take up a weapon again: it stays
  active, with the note "surrendered".
* `conditions`: its status effects and the turns of its own each has left (T6).
* `hands`: main hand, then off hand (T9: what it holds); `dropped`: on the ground.
* `notes`: its Defensive Stance (T7), its preparation (T2: "preparing", and the move
  only where the data names it: its own side, or once it triggered), and its flags:
  braced, winded, hidden, surrendered (T9), fainted (T8), dead.
* `details`: the sheet a player reads on its own character, for an audience that sees
  the sheet; the GM's `notes` only where the data holds them (the GM's own card).
"""

from __future__ import annotations

from server.engine.rulesets.tael.combatant import Preparation
from server.engine.views import Audience, Data, health_state
from server.table.cards import (
    cell,
    listed,
    meter,
    register_cards,
    row,
    signed,
    tag,
    text,
    word,
    words,
)

RULESET = "tael"
FLAGS = ("braced", "winded", "hidden", "surrendered", "fainted", "dead")


def tael_card(data: Data, audience: Audience) -> Data:
    """The card of one Tael combatant, from its data as `audience` may see it."""
    sheet: Data = data["sheet"]
    health = meter(data.get("hit_points"), sheet.get("hit_points"))
    if "health_state" in data:
        health_word = data["health_state"]
    elif health is not None:
        health_word = health_state(health["now"], health["max"])
    else:
        health_word = ""
    hands = [h for h in (data.get("main_hand", ""), data.get("off_hand", "")) if h]
    return {
        "id": data["id"],
        "name": text(sheet.get("name", "")),
        "side": word(data.get("side", "")),
        "position": cell(data.get("position")),
        "ascension": 0,
        "facing": data.get("facing", 0),
        "mounted_on": "",
        "active": not data.get("dead", False) and not data.get("fainted", False),
        "health": health,
        "health_word": word(health_word),
        "mana": None,
        "conditions": [tag(s["name"], s.get("turns")) for s in data.get("statuses", ())],
        "hands": words(hands),
        "dropped": words(data.get("dropped", [])),
        "broken": [],
        "notes": _notes(data),
        "details": _details(data, sheet) if "attributes" in sheet else [],
    }


def _notes(data: Data) -> list[str]:
    notes = [text(f"stance: {data['stance']}")] if data.get("stance") else []
    preparation, move = data.get("preparation", Preparation.NONE), data.get("prepared", "")
    if preparation == Preparation.OPEN:
        notes.append(text(f"preparing {move}" if move else "preparing"))
    elif preparation == Preparation.USED:
        notes.append(text(f"{move} triggered" if move else "preparation used"))
    notes.extend(flag for flag in FLAGS if data.get(flag))
    return notes


def _details(data: Data, sheet: Data) -> list[list[str]]:
    """The sheet as rows, for an audience that sees it (its data holds the sheet)."""
    rows = [
        row(a["name"].capitalize(), f"{a['value']} ({signed(a['modifier'])})")
        for a in sheet["attributes"]
    ]
    for label, name in (
        ("Martial Combat", "martial_combat"),
        ("Precision", "precision"),
        ("Magic", "magic"),
        ("Dodging", "dodging"),
        ("Initiative", "initiative"),
        ("Willpower", "willpower"),
    ):
        rows.append(row(label, signed(sheet.get(name, 0))))
    if "willpower_dc" in data:
        failures = data.get("willpower_failures", 0)
        rows.append(row("Willpower DC", f"{data['willpower_dc']} ({failures} failed)"))
    rows.append(row("Movement", f"{sheet.get('movement', 0)} tiles"))
    armour = sheet.get("armour") or {}
    worn = armour.get("name") or "none"
    penalty = f", dodge -{armour['dodge_penalty']}" if armour.get("dodge_penalty") else ""
    rows.append(row("Armour", f"{worn}, DV {armour.get('defensive_value', 0)}{penalty}"))
    if sheet.get("classes"):
        rows.append(row("Classes", listed(c["name"] for c in sheet["classes"])))
    rows.append(row("Weapon skills", listed(sheet.get("weapon_skills", ()))))
    if sheet.get("magic_schools"):
        rows.append(row("Magic schools", listed(sheet["magic_schools"])))
    rows.extend(_weapon(w) for w in sheet.get("weapons", ()))
    for spell in sheet.get("spells", ()):
        rows.append(row(spell["name"], _spell(spell)))
    if sheet.get("preparations"):
        moves = (f"{p['name']} ({p['trigger'].replace('_', ' ')})" for p in sheet["preparations"])
        rows.append(row("Preparations", listed(moves)))
    if sheet.get("skills"):
        rows.append(row("Skills", listed(f"{n} {signed(m)}" for n, m in sheet["skills"])))
    if sheet.get("immunities"):
        rows.append(row("Immune to", listed(sheet["immunities"])))
    if sheet.get("notes"):  # only in the GM's data: the views take it out for players
        rows.append(row("GM notes", sheet["notes"]))
    return rows


def _weapon(weapon: Data) -> list[str]:
    parts = [weapon["kind"]]
    if weapon.get("damage"):
        parts.insert(0, weapon["damage"])
    if weapon.get("skill"):
        parts.append(f"skill {weapon['skill']}")
    if weapon.get("hands", 1) > 1:
        parts.append("two-handed")
    if weapon.get("reach", 1) != 1:
        parts.append(f"reach {weapon['reach']}")
    return row(weapon["name"], ", ".join(parts))


def _spell(spell: Data) -> str:
    parts = [spell["school"] + (" scroll" if spell.get("scroll") else "")]
    if spell.get("damage"):
        parts.append(spell["damage"])
    parts.append(f"reach {spell.get('reach', 0)}")
    if spell.get("targets", 1) > 1:
        parts.append(f"{spell['targets']} targets")
    if spell.get("status"):
        parts.append(spell["status"]["name"])
    return ", ".join(parts)


register_cards(RULESET, tael_card)
