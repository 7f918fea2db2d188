"""Verse Chronicles ("Basics & Combat"): importing this package registers the ruleset."""

from server.engine.rulesets.verse import attacks, conditions, damage, turns
from server.engine.rulesets.verse.ruleset import VERSE

__all__ = ["VERSE", "attacks", "conditions", "damage", "turns"]
