"""Rule systems that exist only in the tests.

Each module here registers a whole ruleset on the server when it is imported, through
the same registries the real rule systems use (the engine's `RULESETS`, the views, the
cards, the log's roll cards, the narration, the choices and the encounter reader's
sheet kinds). Nothing in `server/` or `clients/` names them: a test that imports one
shows that a rule system added to the server later plays with no change to the client.
"""
