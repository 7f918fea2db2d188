"""`python -m server`: the same as `combat-server`."""

import sys

from server.app import main

sys.exit(main())
