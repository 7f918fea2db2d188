"""Commands of many callers sent to Redis together: one pipeline, one round trip.

A busy process has many rooms appending and publishing at once. Sent one by one, each
append and each publish is its own write to the socket, its own read and its own trip
through the client's pool; that overhead, not Redis, is most of what Redis mode costs a
process over the embedded server (its profile under saturation: about a sixth of the
event loop). `Batches` is group commit: a caller queues its command and waits for its
own reply; one task sends whatever is queued as one pipeline (no transaction: each
command, a Lua script included, is still atomic on its own), and while that pipeline
is on its way the next callers queue for the one after. One caller alone waits one
round trip, as before; under load a round trip carries every command that came
meanwhile.

Each caller gets its own command's reply or error: a script refused (a version
conflict, a lease lost) fails only its caller. A script Redis does not know (a fresh
primary after a failover) is loaded and its commands sent again; it had not run. A
connection that fails fails every command of the pipeline with its error, which is
what each caller would have seen alone: its command may or may not have run.

Durability: `confirm` adds commands after the batch on the same connection (`WAIT`,
`WAITAOF`: they count that connection's writes; the primary's run id, behind
Sentinel), and `check` turns their replies into an error for every command of the
batch, or none. One wait thus confirms a whole batch.

A primary that has too few replicas to take writes (`min-replicas-to-write`: the
deploy files set it) refuses a write with `NOREPLICAS`; its caller gets `Unconfirmed`,
as for a wait that did not confirm, so the room treats both alike.

A caller cancelled before its batch is sent is left out of it (nothing is sent for
it); one cancelled later cannot recall it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, ResponseError

from server.redis_clients import Unconfirmed


@dataclass(slots=True, eq=False)
class _Call:
    args: tuple[Any, ...]
    script: AsyncScript | None
    reply: asyncio.Future[Any] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def give(self, reply: Any) -> None:
        if not self.reply.done():
            self.reply.set_result(reply)

    def fail(self, error: BaseException) -> None:
        if not self.reply.done():
            self.reply.set_exception(error)


class Batches:
    """Commands on `client`, sent together (the module's docstring)."""

    def __init__(
        self,
        client: Redis,
        *,
        confirm: Callable[[Pipeline], object] | None = None,
        check: Callable[[Any], None] | None = None,
    ) -> None:
        self._client = client
        self._confirm = confirm
        self._check = check
        self._queue: list[_Call] = []
        self._sending: asyncio.Task[None] | None = None
        self._closed = False

    async def script(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any:
        """Run `script` (its reply, or its error)."""
        return await self._call(_Call(("EVALSHA", script.sha, len(keys), *keys, *args), script))

    async def command(self, *args: Any) -> Any:
        """Run one command (`"PUBLISH", channel, message`): its reply, or its error."""
        return await self._call(_Call(args, None))

    async def close(self) -> None:
        """Send nothing more: what is queued fails, the batch on its way ends."""
        self._closed = True
        queued, self._queue = self._queue, []
        for call in queued:
            call.fail(RuntimeError("the connection to Redis was closed"))
        if self._sending is not None and not self._sending.done():
            self._sending.cancel()
            try:
                await self._sending
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise

    async def _call(self, call: _Call) -> Any:
        if self._closed:
            raise RuntimeError("the connection to Redis was closed")
        self._queue.append(call)
        if self._sending is None or self._sending.done():
            self._sending = asyncio.create_task(self._send_all(), name="redis batches")
        return await call.reply

    async def _send_all(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            batch = [call for call in batch if not call.reply.done()]  # withdrawn
            if not batch:
                continue
            try:
                await self._send(batch)
            except BaseException as error:  # cancelled (closed), or a bug: nobody hangs
                for call in batch:
                    call.fail(error if isinstance(error, Exception) else RuntimeError("closed"))
                if not isinstance(error, Exception):
                    raise

    async def _send(self, batch: list[_Call]) -> None:
        for _ in range(2):
            try:
                async with self._client.pipeline(transaction=False) as pipe:
                    for call in batch:
                        pipe.execute_command(*call.args)
                    if self._confirm is not None:
                        self._confirm(pipe)
                    replies = await pipe.execute(raise_on_error=False)
            except Exception as error:  # the connection: every command's fate is unknown
                for call in batch:
                    call.fail(error)
                return
            confirmation = replies[len(batch) :]
            unknown: list[_Call] = []
            for call, reply in zip(batch, replies, strict=False):
                if isinstance(reply, NoScriptError) and call.script is not None:
                    unknown.append(call)  # it did not run: load the script, send it again
                elif isinstance(reply, ResponseError) and "NOREPLICAS" in str(reply):
                    call.fail(Unconfirmed(f"the primary takes no writes now ({reply})"))
                elif isinstance(reply, Exception):
                    call.fail(reply)
                elif (unconfirmed := self._unconfirmed(confirmation)) is not None:
                    call.fail(unconfirmed)
                else:
                    call.give(reply)
            if not unknown:
                return
            for script in {id(call.script): call.script for call in unknown}.values():
                assert script is not None
                await self._client.script_load(script.script)
            batch = unknown
        for call in batch:
            call.fail(NoScriptError("the script could not be loaded"))

    def _unconfirmed(self, replies: list[Any]) -> Exception | None:
        """The error a command of the batch gets from the confirmation, if any (one
        for each: an exception is raised by one caller only): an error of one of the
        confirmation's commands, or what `check` makes of their replies."""
        for reply in replies:
            if isinstance(reply, Exception):
                return reply
        if self._check is not None:
            try:
                self._check(replies)
            except Exception as error:
                return error
        return None
