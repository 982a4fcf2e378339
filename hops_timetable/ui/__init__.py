"""The Hopsworks tab in Airflow's UI: a FastAPI app (:mod:`.app`) rendering pure HTML and SVG (:mod:`.render`)."""
