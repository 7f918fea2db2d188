"""The websocket and HTTP edge on one port: `/ws` for clients, `/healthz`, `/metrics`.

`websockets` does the protocol work (framing, the 64 KiB frame limit with close code
1009, pings, the opening handshake, subprotocol negotiation) for a connection whose
first request is a websocket upgrade; any other connection is plain HTTP, with
keep-alive and pipelining (`plain_http.py`, which `Socket` in `session.py` hands it
to). This module only routes, both kinds alike (`_route`):

* `GET /healthz`: 200 and a small JSON body while the server serves;
* `GET /metrics`: Prometheus text (`metrics.py`);
* `GET /ws` with a websocket upgrade offering one of `protocol.SUBPROTOCOLS`: a
  `Session`. An upgrade that offers none of them is refused with HTTP 400, so a client
  never runs on an encoding it did not ask for.
* `GET /ws` without an upgrade: 400 without one of the subprotocols, else 426;
* anything else: 404.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from protocol.codec import MAX_FRAME, OLD_SUBPROTOCOLS, SUBPROTOCOLS
from server.gateway.admission import Admission
from server.gateway.connection import Limits
from server.gateway.metrics import CONTENT_TYPE, Metrics
from server.gateway.session import OPEN_TIMEOUT, Session, Socket
from server.hosting import Host
from server.plain_http import http_response

logger = logging.getLogger(__name__)

WS_PATH = "/ws"


@dataclass
class Gateway:
    host: Host
    limits: Limits = field(default_factory=Limits)
    metrics: Metrics = field(init=False)
    admission: Admission = field(init=False)  # new connections per address, from `limits`

    def __post_init__(self) -> None:
        self.metrics = Metrics(lambda: self.host.rooms)
        self.admission = Admission(self.limits)

    def _admit(self, connection: ServerConnection) -> Response | None:
        """HTTP 429 for a connection over its address's budget (`admission.py`), None
        for any other. Nothing else is done for it: no upgrade, no route."""
        peer = connection.remote_address
        retry = self.admission.admit(peer[0] if peer else None, time.monotonic())
        if retry is None:
            return None
        self.metrics.refused.labels("address").inc()
        response = connection.respond(
            HTTPStatus.TOO_MANY_REQUESTS, "too many new connections from your address\n"
        )
        response.headers["Retry-After"] = str(math.ceil(retry))
        return response

    async def serve(self, hostname: str, port: int) -> Server:
        """Start listening; the returned server's `sockets` tell the port bound."""
        self.admission = Admission(self.limits)  # the limits as they are when it serves
        return await serve(
            self._connection,
            hostname,
            port,
            subprotocols=[*SUBPROTOCOLS, *OLD_SUBPROTOCOLS],  # type: ignore[list-item]
            process_request=self._route,
            max_size=MAX_FRAME,
            # No permessage-deflate: frames are small msgpack maps that compress little,
            # and each compressed connection holds two zlib contexts (about 48 KiB more
            # per connection measured by bench/load.py's idle mode) and costs CPU per frame.
            compression=None,
            max_queue=16,
            write_limit=64 * 1024,
            ping_interval=self.limits.ping_interval,
            ping_timeout=self.limits.ping_timeout,  # Socket.keepalive: 4009, not 1011
            close_timeout=5,
            open_timeout=OPEN_TIMEOUT,  # a plain HTTP connection's life too (session.py)
            server_header="verse-combat",
            create_connection=Socket,  # counts every frame against the frame budget
        )

    def _connection(self, ws: ServerConnection) -> Coroutine[Any, Any, None]:
        """The session's own coroutine, not one awaiting it: one frame less held by
        every open connection."""
        return Session(ws, self.host, self.limits, self.metrics).run()

    def _route(self, connection: ServerConnection, request: Request) -> Response | None:
        refused = self._admit(connection)
        if refused is not None:
            return refused
        path = request.path.split("?", 1)[0]
        if path == WS_PATH:
            offered = ",".join(request.headers.get_all("Sec-WebSocket-Protocol"))
            names = {name.strip() for name in offered.split(",")}
            if not names & {*SUBPROTOCOLS, *OLD_SUBPROTOCOLS}:
                return connection.respond(
                    HTTPStatus.BAD_REQUEST,
                    f"offer a subprotocol: {' or '.join(SUBPROTOCOLS)}\n",
                )
            return None
        if path == "/healthz":
            body = json.dumps({"status": "ok", "rooms": self.host.rooms}) + "\n"
            return http_response(HTTPStatus.OK, body.encode(), "application/json")
        if path == "/metrics":
            return http_response(HTTPStatus.OK, self.metrics.render(), CONTENT_TYPE)
        return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
