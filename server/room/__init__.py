"""The room layer: one asyncio actor per encounter, its clock and its window countdown."""

from server.room.clock import Clock, FakeClock, SystemClock
from server.room.countdown import Countdown
from server.room.room import Ack, Room

__all__ = ["Ack", "Clock", "Countdown", "FakeClock", "Room", "SystemClock"]
