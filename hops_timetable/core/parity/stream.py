"""Reading an executions listing piece by piece: one execution in memory at a time, never the whole document.

A listing of a million executions is half a gigabyte of text and several times that as parsed JSON; only the
executions read from it are kept. The outer shape is walked here (a page ``{"href", "items": [...], "count"}`` or a
list of pages); every value inside it (an execution, ``count``, ``href``) is parsed by the standard library's JSON
decoder, so the grammar is JSON's own. Text arrives in chunks of any size; a value cut by a chunk's end is parsed
again once more text has come.

Pure: no Airflow import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hops_timetable.core.validation import ArgumentError

__all__ = ["Event", "events"]

_WHITESPACE = " \t\n\r"


@dataclass(frozen=True, slots=True)
class Event:
    """``page`` (a page begins; ``value`` is None, or the page itself when it is not an object), ``item`` (one element
    of its ``items``), ``key`` (another key: ``name`` and ``value``), or ``items`` (``items`` is not a list)."""

    kind: str
    page: int | None  # None: the listing is one page, not a list of pages
    name: str = ""
    value: object = None


class _Text:
    """The text read so far past what was consumed, with more read on demand from *chunks*."""

    def __init__(self, chunks: Iterable[str], source: str) -> None:
        self.chunks = iter(chunks)
        self.source = source
        self.buf = ""
        self.pos = 0
        self.ended = False
        self.decoder = json.JSONDecoder()

    def more(self) -> bool:
        if self.ended:
            return False
        chunk = next(self.chunks, None)
        if chunk is None:
            self.ended = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end), not consumed."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            self.fail(f"expected {what}, found {found!r}" if found else f"ended where {what} was expected")
        self.pos += 1
        return found

    def value(self) -> object:
        """The next JSON value, parsed whole."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                # A value cut by the chunk's end reads as an error at or near that end: read on and try again.
                if self.more():
                    continue
                self.fail(exc.msg)
            except RecursionError:
                self.fail("nests deeper than Python's parser allows")
            if end == len(self.buf) and not self.ended and isinstance(value, (int, float)) and self.more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return value

    def fail(self, problem: str) -> None:
        raise ArgumentError(self.source, None, f"{self.source} is not a JSON executions listing: {problem}")


def events(chunks: Iterable[str], source: str) -> Iterator[Event]:
    """The pages, items and other keys of the listing whose text comes in *chunks*; see the module docstring."""
    text = _Text(chunks, source)
    if text.peek() == "[":
        text.pos += 1
        page = 0
        if text.peek() == "]":
            text.pos += 1
        else:
            while True:
                yield from _page(text, page)
                page += 1
                if text.expect(",]", "',' or ']' after a page") == "]":
                    break
    else:
        yield from _page(text, None)
    if text.peek():
        text.fail("text after the listing")


def _page(text: _Text, number: int | None) -> Iterator[Event]:
    if text.peek() != "{":
        yield Event("page", number, value=text.value())  # not an object: the loader names it
        return
    yield Event("page", number)
    text.pos += 1
    if text.peek() == "}":
        text.pos += 1
        return
    while True:
        name = text.value()
        if not isinstance(name, str):
            text.fail("an object key is not a string")
        text.expect(":", "':' after a key")
        if name == "items" and text.peek() == "[":
            text.pos += 1
            if text.peek() == "]":
                text.pos += 1
            else:
                while True:
                    yield Event("item", number, value=text.value())
                    if text.expect(",]", "',' or ']' after an item") == "]":
                        break
        elif name == "items":
            yield Event("items", number, value=text.value())
        else:
            yield Event("key", number, str(name), text.value())
        if text.expect(",}", "',' or '}' in a page") == "}":
            return
