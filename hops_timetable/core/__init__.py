"""The pure core: the rules of Hopsworks scheduling as plain functions on aware UTC datetimes.

Standard library only; nothing here imports Airflow, the adapters or the tools (``tests/test_layout.py`` checks it).
"""
