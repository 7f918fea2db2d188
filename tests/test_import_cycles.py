"""The server's shells import one another one way only: the edge (`gateway/server.py`,
`session.py`, `connection.py`), the rooms of a process (`hosting.py`), the cluster,
the room, the log and the bus. A cycle among them is how a "thin shell" quietly starts
to depend on what it wraps; grimp (import-linter's graph) finds any, `TYPE_CHECKING`
imports included."""

from __future__ import annotations

import grimp

SHELLS = (
    "server.app",
    "server.gateway",
    "server.hosting",
    "server.cluster",
    "server.room",
    "server.eventlog",
    "server.bus",
    "server.leases",
    "server.tasks",
)


def test_the_shells_have_no_import_cycle() -> None:
    graph = grimp.build_graph("server")
    shells = sorted(m for m in graph.modules if m.startswith(SHELLS))
    assert "server.gateway.connection" in shells and "server.cluster.ownership" in shells
    cycles = set()
    for module in shells:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported in shells and graph.chain_exists(importer=imported, imported=module):
                cycles.add(tuple(sorted((module, imported))))
    assert not cycles, f"import cycles: {sorted(cycles)}"
