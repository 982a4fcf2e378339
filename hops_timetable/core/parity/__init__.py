"""Parity between what Hopsworks executed and what Airflow runs: one module per step.

``exports``, ``stream`` and ``ledger`` read Hopsworks' exports, ``replay`` makes a schedule's plan of a range,
``meaning`` reads ``-start_time``, ``compare`` classifies each fire, ``sides`` puts them together
(:func:`~hops_timetable.core.parity.sides.parity`). Pure: no Airflow.
"""
