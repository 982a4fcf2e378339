"""Reading an executions listing piece by piece: one execution in memory at a time, never the whole document.

A million executions are half a gigabyte of text and several times that parsed. Only the outer shape (a page
``{"href", "items": [...], "count"}`` or a list of pages) is walked here; every value inside it is parsed by the
standard library's :meth:`json.JSONDecoder.raw_decode`, so the grammar is JSON's own. A value cut by a chunk's end
is parsed again once more text has come. Pure: no Airflow import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import NoReturn

from hops_timetable.core.validation import ArgumentError, short_repr


class _Text:
    """The text read so far past what was consumed, with more read on demand from *chunks*."""

    def __init__(self, chunks: Iterable[str], source: str) -> None:
        self.chunks, self.source = iter(chunks), source
        self.buf, self.pos, self.ended = "", 0, False
        self.decoder = json.JSONDecoder()

    def more(self) -> bool:
        chunk = None if self.ended else next(self.chunks, None)
        self.ended = chunk is None
        if chunk is not None:
            self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        return not self.ended

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end), not consumed."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\n\r":
                self.pos += 1
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]

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
                if self.more():  # a value cut by the chunk's end: read on and try again
                    continue
                self.fail(exc.msg)
            except RecursionError:
                self.fail("nests deeper than Python's parser allows")
            if end == len(self.buf) and isinstance(value, (int, float)) and self.more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return value

    def each(self, close: str, what: str) -> Iterator[None]:
        """Once before each element of the array or object just opened; consumes the separators and *close*."""
        self.pos += 1
        if self.peek() == close:
            self.pos += 1
            return
        while True:
            yield
            if self.expect("," + close, f"',' or '{close}' {what}") == close:
                return

    def fail(self, problem: str) -> NoReturn:
        raise ArgumentError(self.source, None, f"{self.source} is not a JSON executions listing: {problem}")


def events(chunks: Iterable[str], source: str) -> Iterator[tuple[str, str, object]]:
    """Where (the file, and the page in a list of pages), what (``count``, or ``items[i]``) and the value of each
    page's ``count`` and each of its items, from the listing's text in *chunks*; see the module docstring."""
    text = _Text(chunks, source)
    if text.peek() == "[":
        for page, _ in enumerate(text.each("]", "after a page")):
            yield from _page(text, f"{source}: page {page}")
    else:
        yield from _page(text, source)
    if text.peek():
        text.fail("text after the listing")


def _page(text: _Text, where: str) -> Iterator[tuple[str, str, object]]:
    if text.peek() != "{":
        page = text.value()
        what = f'expected an object {{"items": [...], "count": n}}, got {type(page).__name__}'
        raise ArgumentError("page", page, f"{where}: {what}")
    for _ in text.each("}", "in a page"):
        name = text.value()
        if not isinstance(name, str):
            text.fail("an object key is not a string")
        text.expect(":", "':' after a key")
        if name == "items" and text.peek() == "[":
            yield from ((where, f"items[{i}]", text.value()) for i, _ in enumerate(text.each("]", "after an item")))
        elif name == "items":
            items = text.value()
            raise ArgumentError("items", items, f"{where}: items={short_repr(items, 60)} is not a list")
        elif name == "count":
            yield where, name, text.value()
        else:
            text.value()
