"""Scale-out over Redis: several server processes share the rooms (`--redis URL`).

The embedded server (one process, SQLite, the in-process bus) needs none of this. With
Redis, each room's log is a Redis Stream (`server.eventlog.redis`), its events fan out
through Redis pub/sub (`server.bus.redis`), and exactly one process runs it at a time,
the holder of its lease (`server.leases`), whose appends are fenced by the lease's
token. This package wires those pieces into the server:

- `timing`: the window countdown a room's runner publishes with its events, so that
  every process's feed shows the same countdown;
- `codec`: the bytes of what travels on a room's event channel;
- `forwarding`: commands that reach a process not running the room go to the one that
  does, and its answer comes back;
- `ownership`: one room in a cluster: take its lease when free, run it while holding
  the lease (renewing it), stop at once when it is lost, take over when its holder dies;
- `node`: one process's share of the cluster: its Redis clients and rooms.

docs/architecture.md ("Scale-out") says why it is built this way.
"""
