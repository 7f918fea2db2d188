"""A Verse sheet file as the engine's records, for the GM's `add` (`AddCombatant`).

`combat create` sends sheet files as written and the server turns them into records;
`AddCombatant` takes the combatant record itself (docs/protocol.md, `AddCombatant`,
`VerseCombatant`): nested records tagged with `$type`, the `training` table as
`[name, ranks]` pairs. This module does only that reshaping, following docs/sheets.md;
every field is still checked by the server, which refuses a wrong one with its path
(`invalid_command: combatant.sheet.weapons.0.damage: ...`). The combatant starts as
`VerseCombatant.from_sheet` starts one: the sheet's health, mana, abilities, armour
durability and conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients.lines import AddFromSheet, Data


@dataclass(frozen=True)
class Shape:
    """A record of the sheet: its `$type`, the records nested in it (one, or a list of
    them), its tables written as `[name, value]` pairs and its decimal fields."""

    name: str
    nested: dict[str, Shape] = field(default_factory=dict)
    lists: dict[str, Shape] = field(default_factory=dict)
    pairs: frozenset[str] = frozenset()
    decimals: frozenset[str] = frozenset()

    def record(self, data: Any) -> Any:
        """`data` (a table of the file) as this record; anything else as it is, for the
        server to refuse with its path."""
        if not isinstance(data, dict):
            return data
        shaped: Data = {"$type": self.name}
        for key, value in data.items():
            if key in self.nested:
                value = self.nested[key].record(value)
            elif key in self.lists and isinstance(value, list):
                value = [self.lists[key].record(item) for item in value]
            elif key in self.pairs and isinstance(value, dict):
                value = [[name, ranks] for name, ranks in value.items()]
            elif key in self.decimals and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)  # docs/sheets.md: a decimal field takes whole numbers
            shaped[key] = value
        return shaped


VERSE_SHEET = Shape(
    "VerseSheet",
    nested={
        "abilities": Shape("Abilities"),
        "defences": Shape("Defences"),
        "build_points": Shape("BuildPoints"),
        "speeds": Shape("Speeds"),
    },
    lists={
        "weapons": Shape("Weapon", decimals=frozenset({"weight_lb"})),
        "spells": Shape("Spell", lists={"options": Shape("SpellOption")}),
        "feats": Shape("Feat"),
        "items": Shape("Item"),
        "conditions": Shape("SheetCondition"),
    },
    pairs=frozenset({"training"}),
)
"""docs/sheets.md: the sheet's tables and arrays of tables, and the records they are."""


def verse_combatant(sheet: Data, add: AddFromSheet) -> Data:
    """The `VerseCombatant` record `AddCombatant` takes, made from a sheet file's data."""
    record = VERSE_SHEET.record(sheet)
    conditions = [
        {"$type": "Condition", "name": c.get("name"), "rounds": c.get("rounds")}
        for c in sheet.get("conditions", [])
        if isinstance(c, dict)
    ]
    return {
        "$type": "VerseCombatant",
        "id": add.combatant,
        "side": add.side,
        "sheet": record,
        "health": sheet.get("health"),
        "mana": sheet.get("mana"),
        "abilities": record.get("abilities"),
        "armour_durability": sheet.get("armour_durability"),
        "position": add.at,
        "facing": add.facing,
        "conditions": conditions,
    }
