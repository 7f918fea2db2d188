"""The gateway: the websocket and HTTP edge of the server.

It authenticates connections by token (`server.gateway.tokens`), enforces rate and size
limits, and hands commands to rooms; the role always comes from the token, never from
a message field (ARCHITECTURE, the layer table).
"""
