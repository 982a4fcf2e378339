"""``python -m hops_timetable.cli``."""

import sys

from hops_timetable.cli.app import main

sys.exit(main())
