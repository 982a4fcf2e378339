"""Reading untrusted JSON text within a size and a nesting depth, for ``import`` and ``parity``. Pure."""

from __future__ import annotations

import json
from typing import Final

from hops_timetable.core.validation import ArgumentError

MAX_JSON_BYTES: Final = 16 * 1024 * 1024  # tens of thousands of schedules
MAX_JSON_DEPTH: Final = 32  # a Hopsworks export nests four levels


def load_json(raw: str, source: str, max_chars: int = MAX_JSON_BYTES) -> object:
    """The JSON text *raw* read from *source*; over *max_chars*, too deep or not JSON: an ``ArgumentError``."""
    if len(raw) > max_chars:
        raise ArgumentError(
            source, None, f"{source} is larger than {max_chars:,} characters; split the export into smaller files"
        )
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        message = f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ArgumentError(source, None, message) from None
    except RecursionError:
        raise ArgumentError(source, None, _too_deep(source)) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise ArgumentError(source, None, f"{source} is not readable JSON: {exc}") from None
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise ArgumentError(source, None, _too_deep(source))
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return data


def _too_deep(source: str) -> str:
    return f"{source} nests objects and lists deeper than {MAX_JSON_DEPTH} levels; a Hopsworks export nests four"
