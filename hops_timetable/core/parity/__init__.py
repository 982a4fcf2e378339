"""Parity between what Hopsworks executed and what Airflow runs, one module per step (:mod:`.sides` joins them)."""
