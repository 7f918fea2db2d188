"""Refusal codes only World of Tael needs (stable on the wire, like `server.engine.errors`).

Every other Tael refusal uses the engine's shared codes (`not_your_turn`,
`action_used`, `out_of_range`, `blocked`, ...).
"""

from __future__ import annotations

NOT_FAINTED = "not_fainted"  # Help (T8, T9) for an ally that is not fainted
COMBAT_NOT_OVER = "combat_not_over"  # T10: no side is all dead, fainted or surrendered yet
NO_PREPARATION = "no_preparation"  # T2: not in a Preparation Phase, or its one is spent
NO_FOLLOW_UP = "no_follow_up"  # an off-hand attack or Punch with nothing it follows (T5, T9)
BRACED = "braced"  # T9: no more attacks this turn after Brace
