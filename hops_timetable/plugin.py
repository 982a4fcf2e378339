"""The Airflow plugin that registers :class:`~hops_timetable.timetable.HopsworksTimetable`.

Airflow deserializes only the custom timetables a plugin registers. The package declares this plugin under the
``airflow.plugins`` entry point, so installing the package is enough: no file in the plugins folder.
"""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin
from airflow.timetables.base import Timetable

from hops_timetable.timetable import HopsworksTimetable

__all__ = ["HopsTimetablePlugin"]


class HopsTimetablePlugin(AirflowPlugin):
    """Registers the Hopsworks timetable with Airflow's scheduler, dag-processor and api-server."""

    name = "hops_timetable"
    # AirflowPlugin declares these as plain class attributes holding lists; the same shape is kept here.
    timetables: list[type[Timetable]] = [HopsworksTimetable]  # noqa: RUF012
