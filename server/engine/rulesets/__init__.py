"""Rule systems, each registered by name on import (ARCHITECTURE: rulesets as strategies)."""

from server.engine.rulesets import tael, verse

__all__ = ["tael", "verse"]
