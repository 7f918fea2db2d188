"""How a Verse combatant is drawn: its `Card`, from its redacted plain data.

The data is what `server.engine.rulesets.verse.views` lets this audience see: the
whole combatant (the GM; its own or an allied side, less the GM's notes) or what the
table sees of a foe (where it is, how it stands, its conditions, a coarse
`health_state`). So the card reads each field only where the data holds it: numbers
(health, mana, the sheet) show only for an audience that sees them, and a foe's card
is made of what the table sees.

* `health_word` is the views' own `health_state`: given in a foe's data, and worked
  out by the same function for an audience that sees the numbers.
* `active` is `VerseCombatant.active`: no condition that takes it out
  (`INCAPACITATING`: Dead, Unconscious, Stunned, Knocked Out).
* `hands`: the sheet's weapons and shield, less those knocked away (V6: `in_hand`).
* `notes`: holding its action (V19), its stance (V18), an awareness other than alert
  ("Combat Styles"), a ride, and a spell being charged (V12: "charging Fireball 1/2").
* `details`: the sheet a player reads on its own character, for an audience that sees
  the sheet; the GM's `notes` only where the data holds them (the GM's own card).
"""

from __future__ import annotations

from typing import Any

from server.engine.rulesets.verse.combatant import (
    INCAPACITATING,
    Awareness,
    Stance,
)
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

RULESET = "verse"
ABILITIES = ("strength", "dexterity", "constitution", "sanity", "intellect", "empathy")


def verse_card(data: Data, audience: Audience) -> Data:
    """The card of one Verse combatant, from its data as `audience` may see it."""
    sheet: Data = data["sheet"]
    conditions = data.get("conditions", [])
    health = meter(data.get("health"), sheet.get("health"))
    mana = meter(data.get("mana"), sheet.get("mana"))
    if mana is not None and mana["now"] == 0 and mana["max"] == 0:
        mana = None  # no Mana to spend: no bar to draw
    dropped = data.get("dropped", [])
    return {
        "id": data["id"],
        "name": text(sheet.get("name", "")),
        "side": word(data.get("side", "")),
        "position": cell(data.get("position")),
        "ascension": data.get("ascension", 0),
        "facing": data.get("facing", 0),
        "mounted_on": word(data.get("mounted_on", "")),
        "active": not any(c["name"] in INCAPACITATING for c in conditions),
        "health": health,
        "health_word": word(data.get("health_state") or _health_word(health)),
        "mana": mana,
        "conditions": [tag(c["name"], c.get("rounds")) for c in conditions],
        "hands": _hands(sheet, dropped),
        "dropped": words(dropped),
        "broken": words(data.get("broken", [])),
        "notes": _notes(data, sheet),
        "details": _details(data, sheet) if "level" in sheet else [],
    }


def _health_word(health: Data | None) -> str:
    """The word the views give a foe (`views.health_state`), from the numbers an
    audience that sees them has."""
    return "" if health is None else health_state(health["now"], health["max"])


def _hands(sheet: Data, dropped: list[str]) -> list[str]:
    held = [w["name"] for w in sheet.get("weapons", ())]
    if sheet.get("shield"):
        held.append(sheet["shield"])
    return [text(item) for item in held if item not in dropped]


def _notes(data: Data, sheet: Data) -> list[str]:
    notes: list[str] = []
    if data.get("holding"):
        notes.append("holding")
    stance = data.get("stance", Stance.NONE)
    if stance != Stance.NONE:
        notes.append(text(f"stance: {stance}"))
    awareness = data.get("awareness", Awareness.ALERT)
    if awareness != Awareness.ALERT:
        notes.append(text(awareness.replace("_", " ")))
    if sheet.get("is_ride"):
        notes.append("ride")
    charge = data.get("charging")
    if charge:
        done, needed = charge.get("actions_done", 0), charge.get("actions_needed", 0)
        notes.append(text(f"charging {charge.get('spell', '')} {done}/{needed}"))
    return notes


def _details(data: Data, sheet: Data) -> list[list[str]]:
    """The sheet as rows, for an audience that sees it (its data holds the sheet)."""
    rows = [row("Level", sheet["level"])]
    now: Data = data.get("abilities") or sheet["abilities"]
    for name in ABILITIES:
        score, base = now.get(name), sheet["abilities"].get(name)
        rows.append(row(name.capitalize(), score if score == base else f"{score} (of {base})"))
    d = sheet["defences"]
    rows.append(
        row(
            "Defences",
            f"PD {d['physical_dodge']}, PR {d['physical_resistance']}, "
            f"SD {d['spell_dodge']}, SR {d['spell_resistance']}",
        )
    )
    if data.get("armour_durability") is not None and sheet.get("armour_durability") is not None:
        rows.append(row("Armour", f"{data['armour_durability']}/{sheet['armour_durability']}"))
    speeds = sheet.get("speeds", {})
    moving = [f"{k} {v} ft" for k in ("land", "swim", "fly", "burrow") if (v := speeds.get(k))]
    rows.append(row("Speed", listed(moving)))
    rows.append(row("Sight", f"{sheet.get('visual_range_ft', 0)} ft"))
    rows.append(row("Perception", signed(sheet.get("perception", 0))))
    rows.append(row("Stealth", signed(sheet.get("stealth", 0))))
    if sheet.get("initiative_bonus"):
        rows.append(row("Initiative", signed(sheet["initiative_bonus"])))
    training = dict(sheet.get("training", ()))
    rows.append(row("Training", listed(f"{k} {v}" for k, v in training.items())))
    rows.extend(_weapon(w, training) for w in sheet.get("weapons", ()))
    if sheet.get("shield"):
        rows.append(row("Shield", sheet["shield"]))
    if sheet.get("spells"):
        if sheet.get("spell_attack_training"):
            rows.append(row("Spell attack", signed(sheet["spell_attack_training"])))
        rows.append(
            row("Spells", listed(f"{s['name']} (MC {s['min_mc']})" for s in sheet["spells"]))
        )
    if sheet.get("bloodline"):
        rows.append(row("Bloodline", sheet["bloodline"]))
    if sheet.get("feats"):
        rows.append(row("Feats", listed(f["name"] for f in sheet["feats"])))
    if sheet.get("items"):
        used = data.get("items_used", ())
        items = (i["name"] + (" (used)" if i["name"] in used else "") for i in sheet["items"])
        rows.append(row("Items", listed(items)))
    if sheet.get("immunities"):
        rows.append(row("Immune to", listed(sheet["immunities"])))
    if sheet.get("notes"):  # only in the GM's data: the views take it out for players
        rows.append(row("GM notes", sheet["notes"]))
    return rows


def _weapon(weapon: Data, training: dict[str, Any]) -> list[str]:
    ranks = training.get(weapon["category"], 0)
    damage = weapon["damage"] or "unarmed die"
    parts = [f"{damage} {weapon['kind']}", f"{weapon['category']} training {ranks}"]
    if weapon.get("range_ft"):
        parts.append(f"range {weapon['range_ft']} ft")
    elif weapon.get("reach_ft", 5) != 5:
        parts.append(f"reach {weapon['reach_ft']} ft")
    return row(weapon["name"], ", ".join(parts))


register_cards(RULESET, verse_card)
