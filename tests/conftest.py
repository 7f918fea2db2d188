"""Test-wide settings.

Property tests hunt with fresh random examples on a developer's machine; under CI
(`CI` set) they replay a fixed derivation, so a red build always means a change broke
something and never that the search happened to find an old bug that day.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
