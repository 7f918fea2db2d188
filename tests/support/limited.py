"""The combat server (`python -m server`) with other gateway limits: `python -m
tests.support.limited --limits JSON <the server's options>`, JSON naming fields of
`server.gateway.connection.Limits` (`{"pongs_per_second": 100}`).

The server has no option for most limits (they are the protocol's, docs/protocol.md);
a test that measures latency with a `ping` every 20 ms needs pongs at that rate, in a
server process of its own (`ServerProcess(..., module=MODULE)`).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

MODULE = "tests.support.limited"


def main(argv: list[str]) -> int:
    at = argv.index("--limits")
    changes = json.loads(argv[at + 1])
    rest = argv[:at] + argv[at + 2 :]
    from server import app
    from server.gateway.connection import Limits
    from server.gateway.server import Gateway

    def gateway(host: Any, limits: Limits) -> Gateway:
        return Gateway(host, dataclasses.replace(limits, **changes))

    app.Gateway = gateway  # type: ignore[attr-defined]  # what `App` builds its gateway with
    return app.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
