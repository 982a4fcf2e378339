"""``python -m hops_timetable.cli``."""

from hops_timetable.cli.app import main

raise SystemExit(main())
