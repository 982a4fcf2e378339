"""The look of the tab's pages: Airflow's colours and fonts, light or dark as Airflow's UI is, with no build step.

The pages are plain CSS over custom properties (``--bg``, ``--fg``, ``--ran``, ...) with light values, dark values
under ``html.dark`` and, for a page opened on its own, under ``prefers-color-scheme: dark``. Airflow's UI (Chakra,
from 3.1) shows the tab in a same-origin iframe; a few lines of inline script read the host page's own colour mode
(the ``dark``/``light`` class next-themes puts on its ``<html>``) and its Chakra tokens (``--chakra-colors-bg``, ...,
``--chakra-fonts-body``) and follow every change of them. Without the host, or without script, the page still reads
as it should, in the browser's own scheme. No file is fetched: everything is in the page.
"""

from __future__ import annotations

from html import escape

__all__ = ["STATUS_CLASSES", "page"]

STATUS_CLASSES = ("ran", "running", "failed", "missed", "dropped", "due", "skipped", "conf")
"""The classes a fire, a stretch or a run is drawn with: ``f-<class>`` fills a shape, ``t-<class>`` colours text."""

# Our property <- the Chakra token of Airflow's theme it is taken from, when the host page has it.
_HOST_TOKENS = (
    ("--bg", "colors-bg"),
    ("--fg", "colors-fg"),
    ("--muted", "colors-fg-muted"),
    ("--border", "colors-border"),
    ("--head", "colors-bg-muted"),
    ("--subtle", "colors-bg-subtle"),
    ("--link", "colors-fg-info"),
    ("--brand", "colors-brand-solid"),
    ("--ran", "colors-success-solid"),
    ("--running", "colors-running-solid"),
    ("--failed", "colors-failed-solid"),
    ("--conf", "colors-purple-solid"),
    ("--ran-text", "colors-fg-success"),
    ("--failed-text", "colors-fg-error"),
    ("--missed-text", "colors-fg-warning"),
    ("--running-text", "colors-fg-info"),
    ("--font", "fonts-body"),
    ("--mono", "fonts-mono"),
)

_LIGHT = """
--bg:#fff;--fg:#1a2233;--muted:#4b5b73;--border:#e1e6ee;--head:#f1f4f8;--subtle:#f8fafc;--link:#1f5fd6;--brand:#2b5a8c;
--ran:#16833a;--running:#1b8fb0;--failed:#d32f2f;--missed:#e8590c;--dropped:#e9b949;--due:#8892a6;--skipped:#c3cad6;
--conf:#8e44d0;--gap:rgba(211,47,47,.16);--interval:#8a97ab;
--ran-text:#15803d;--running-text:#1f5fd6;--failed-text:#c62828;--missed-text:#c2410c;--dropped-text:#9a6b00;
--due-text:#5b6678;--skipped-text:#6b7689;--conf-text:#7b2fbf;
--ok-bg:rgba(22,131,58,.10);--bad-bg:rgba(232,89,12,.12);color-scheme:light;
"""

_DARK = """
--bg:#1b2030;--fg:#f4f6fa;--muted:#b1bccd;--border:#323a4d;--head:#232a3b;--subtle:#151a27;--link:#9cc3ff;--brand:#2b5a8c;
--ran:#2f9e57;--running:#2aa3c4;--failed:#e5484d;--missed:#f76b15;--dropped:#c89a2c;--due:#7c879b;--skipped:#4e586b;
--conf:#a66ee0;--gap:rgba(229,72,77,.22);--interval:#7c8aa1;
--ran-text:#6fdc8c;--running-text:#9cc3ff;--failed-text:#ff8f8f;--missed-text:#ffb27a;--dropped-text:#f1cd6a;
--due-text:#b1bccd;--skipped-text:#98a3b6;--conf-text:#cfa6ff;
--ok-bg:rgba(47,158,87,.18);--bad-bg:rgba(247,107,21,.18);color-scheme:dark;
"""

_BASE = """
--font:Inter,system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;
--mono:SFMono-Regular,Menlo,Monaco,Consolas,'Liberation Mono','Courier New',monospace;
"""

_RULES = """
html,body{background:var(--bg);color:var(--fg)}
body{font-family:var(--font);margin:0;padding:12px 16px 24px;font-size:14px;line-height:1.45}
h1{font-size:18px;font-weight:600;margin:0 0 8px}h2{font-size:15px;font-weight:600;margin:22px 0 8px}
a{color:var(--link)}p{margin:6px 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:13px}
td,th{border-bottom:1px solid var(--border);padding:4px 10px;text-align:left;vertical-align:top}
th{background:var(--head);font-weight:600;white-space:nowrap}
code,.mono,svg text{font-family:var(--mono)}code,.mono{font-size:12px}h1 .mono{font-size:inherit}
.mono,.num{white-space:nowrap;font-variant-numeric:tabular-nums}
.num{text-align:right}
.verdict{padding:8px 12px;border-radius:6px;display:inline-block;font-weight:600}
.ok{background:var(--ok-bg);color:var(--ran-text)}.bad{background:var(--bad-bg);color:var(--missed-text)}
.status{font-weight:600;white-space:nowrap}.note{color:var(--muted)}
.legend{color:var(--muted);font-size:12px}.legend span{display:inline-block;margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle;border-radius:2px}
ul.words{margin:0;padding-left:18px}
svg text{fill:var(--fg);font-size:11px}svg .axis{fill:var(--muted)}svg .grid{stroke:var(--border)}
svg .now{stroke:var(--link);stroke-dasharray:3,3}svg .range{fill:none;stroke:var(--fg);stroke-width:1.5}
svg .gap,.legend i.gap{fill:var(--gap);background:var(--gap)}
svg .interval,.legend i.interval{fill:var(--interval);background:var(--interval)}
svg .planned{stroke:var(--muted);stroke-dasharray:2,2}svg .edge{fill:var(--muted)}
table#run th{background:none;color:var(--muted);font-weight:500}
input,button{font:inherit;font-size:13px;color:var(--fg);background:var(--bg);border:1px solid var(--border);
border-radius:6px;padding:4px 8px;margin:2px 0}
input.mono{font-family:var(--mono);font-size:12px}input[aria-invalid=true]{border-color:var(--failed)}
button{background:var(--brand);color:#fff;border-color:transparent;font-weight:600;cursor:pointer}
button:disabled{opacity:.6;cursor:default}
input:focus,button:focus-visible{outline:2px solid var(--link);outline-offset:1px}
"""


def _status_rules() -> str:
    return "".join(
        f".f-{name}{{fill:var(--{name});background:var(--{name})}}.t-{name}{{color:var(--{name}-text)}}"
        for name in STATUS_CLASSES
    )


STYLE = (
    f":root{{{_BASE}{_LIGHT}}}html.dark{{{_DARK}}}"
    f"@media (prefers-color-scheme: dark){{html:not(.light){{{_DARK}}}}}"
    f"{_RULES}{_status_rules()}"
).replace("\n", "")

_PAIRS = ",".join(f'["{ours}","--chakra-{theirs}"]' for ours, theirs in _HOST_TOKENS)

# The host is Airflow's page when the tab is in its iframe (same origin, scripts allowed); reading it may throw
# elsewhere, and then the page keeps its own colours. A mode stored by next-themes ("theme") or an older Chakra
# ("chakra-ui-color-mode") counts when the host says nothing; else the CSS media query decides.
THEME_SCRIPT = (
    "(function(){var d=document.documentElement,h=null;"
    "try{if(window.parent!==window&&parent.document)h=parent.document.documentElement}catch(e){}"
    f"var p=[{_PAIRS}];"
    "function mode(){if(h){if(h.classList.contains('dark'))return'dark';if(h.classList.contains('light'))"
    "return'light';var s=getComputedStyle(h).colorScheme;if(s==='dark'||s==='light')return s}"
    "try{var t=localStorage.getItem('theme')||localStorage.getItem('chakra-ui-color-mode');"
    "if(t==='dark'||t==='light')return t}catch(e){}return null}"
    "function apply(){var m=mode();d.classList.toggle('dark',m==='dark');d.classList.toggle('light',m==='light');"
    "if(!h)return;var c=getComputedStyle(h);for(var i=0;i<p.length;i++){var v=c.getPropertyValue(p[i][1]).trim();"
    "if(v)d.style.setProperty(p[i][0],v);else d.style.removeProperty(p[i][0])}}"
    "apply();if(h&&window.MutationObserver)new MutationObserver(apply).observe(h,{attributes:true,"
    "attributeFilter:['class','style','data-theme']});window.addEventListener('storage',apply);"
    "if(window.matchMedia){var q=matchMedia('(prefers-color-scheme: dark)');"
    "if(q.addEventListener)q.addEventListener('change',apply)}})();"
)


def page(title: str, body: str) -> str:
    """A whole page: *title* (escaped here) and *body* (already HTML), with the style and the colour-mode script."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="color-scheme" content="light dark">'
        f"<style>{STYLE}</style><script>{THEME_SCRIPT}</script></head><body>{body}</body></html>"
    )
