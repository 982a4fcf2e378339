"""The plain pages a 3.0 user opens by URL (``/hops/dags/<dag_id>``): tables on the browser's own colours, imitating
nothing (from 3.1 on the tab is the React app, in Airflow's own look)."""

from __future__ import annotations

from html import escape

_CSS = (
    ":root{color-scheme:light dark}body{font-family:system-ui,sans-serif;font-size:14px;margin:16px}"
    "table{border-collapse:collapse;margin:4px 0 12px}th,td{border-bottom:1px solid #8884;padding:3px 8px;"
    "text-align:left;vertical-align:top}td{white-space:nowrap}h1{font-size:20px}h2{font-size:16px;margin-top:20px}"
)


def page(title: str, body: str) -> str:
    """A whole HTML page around *body* (already escaped)."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>{body}</body></html>"
    )
