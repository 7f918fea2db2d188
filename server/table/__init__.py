"""The table: what each seat draws, built on the server so no client knows a rule.

Protocol version 2 (`protocol/table.py`, docs/protocol.md) sends each connection its
audience's table (`view.table_view`), the changes to it as RFC 6902 patches
(`patch.diff`), the log as lines with roll cards (`log.log_lines`) and, to a seat, its
choices (`choices.seat_choices`). Each is built from the data the audience may see:
the redacted state and events of `server.engine.views`, so redaction stays in one
place and nothing here can show more than the raw events would.

Pure like the engine (no I/O, no clock): the gateway's feed calls these per audience
and per batch, and shares the encoded bytes among the connections of one audience.
"""
