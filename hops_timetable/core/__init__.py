"""The pure core: the rules of Hopsworks scheduling as plain functions on aware UTC datetimes.

Standard library only; nothing here imports Airflow, the adapters or the tools (``tests/test_layout.py`` checks
it). :mod:`.cron` evaluates cron expressions, :mod:`.window` is the HOPS window arithmetic, :mod:`.catchup` the
catch-up policy, :mod:`.validation` the argument rules, :mod:`.conf_window` the per-run window of a manual run,
:mod:`.window_source` where a task's values come from, :mod:`.legacy_args` the legacy job arguments and the check
that a bash command passes them, :mod:`.export_schedule` a Hopsworks schedule
export, :mod:`.settings` a schedule's settings, :mod:`.decision` what becomes of a fire (one vocabulary),
:mod:`.simulate` the scheduler's decisions through outages and pauses, :mod:`.coverage` which windows a DAG's runs
processed, :mod:`.repair` which writes fill its gaps.
"""
