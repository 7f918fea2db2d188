"""World of Tael ("Combat"): importing this package registers the ruleset.

Every module of the package is imported here, so a module that registers commands and
events on `TAEL` takes part by existing; nobody has to list it.
"""

import importlib
import pkgutil

from server.engine.rulesets.tael.ruleset import TAEL

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["TAEL"]
