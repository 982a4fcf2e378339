"""bash's words: the tokens of a command text, read as bash's lexer reads them.

Quotes (``'``, ``"``, ``$'``, ``$"``), escapes, line continuations, comments, ``${ }``, ``$(( ))``, backquotes and
here-document bodies; a ``$( )`` or a process substitution is a whole command list inside a word, so the lexer
hands it to the grammar (:mod:`hops_timetable.core.bash_grammar`), which extends :class:`Lexer`. What placing an
argument needs of a word is here too: whether it is an assignment, an fd number, and its text after quote removal.
Pure: no Airflow import.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from dataclasses import dataclass

__all__ = [
    "OPERATORS",
    "BashSyntaxError",
    "Lexer",
    "Token",
    "is_assignment",
    "is_fd",
    "literal",
    "unquoted_heredoc_word",
]

_METACHARS = frozenset(" \t\n;&|()<>")
# Longest first, so that the first match is bash's token.
OPERATORS = (
    ";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "&>", "||", "|&", "<<", "<&", "<>", ">>", ">&", ">|",
    ";", "&", "|", "(", ")", "<", ">",
)  # fmt: skip


class BashSyntaxError(ValueError):
    """The command cannot be read: a bash syntax error, or a construct this reader refuses rather than guesses."""


@dataclass(frozen=True)
class Token:
    kind: str  # "word", "op", "newline" or "eof"
    text: str
    start: int
    end: int

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops


class Lexer(ABC):
    """bash's tokens of *text*, one at a time, with one token of lookahead."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.peeked: Token | None = None
        self.heredocs: list[tuple[str, bool]] = []  # delimiters waiting for the next newline, and whether <<-

    def fail(self, what: str, at: int | None = None) -> BashSyntaxError:
        at = self.i if at is None else at
        return BashSyntaxError(
            f"it cannot be read: {what} at offset {at} (a bash syntax error, or coproc or an extended glob, which "
            "this reader refuses rather than guesses)"
        )

    def peek(self) -> Token:
        if self.peeked is None:
            self.peeked = self.lex()
        return self.peeked

    def next(self) -> Token:
        token = self.peek()
        self.peeked = None
        return token

    def lex(self) -> Token:
        text, n = self.text, len(self.text)
        while self.i < n:
            if text[self.i] in " \t":
                self.i += 1
            elif text.startswith("\\\n", self.i):
                self.i += 2
            elif text[self.i] == "#":
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            else:
                break
        start = self.i
        if start >= n:
            return Token("eof", "", n, n)
        if text[start] == "\n":
            self.i += 1
            self.read_heredoc_bodies()
            return Token("newline", "\n", start, start + 1)
        if not text.startswith(("<(", ">("), start):
            for op in OPERATORS:
                if text.startswith(op, start):
                    self.i += len(op)
                    return Token("op", op, start, self.i)
        self.i = self.word_end(start)
        return Token("word", text[start : self.i], start, self.i)

    def word_end(self, i: int) -> int:
        text, n = self.text, len(self.text)
        while i < n:
            char = text[i]
            if char in "<>" and text.startswith("(", i + 1):
                i = self.substitution(i + 2)
            elif char in _METACHARS:
                break
            elif char == "\\":
                i += 2
            elif char == "'":
                i = self.single_quote(i + 1)
            elif char == '"':
                i = self.double_quote(i + 1)
            elif char == "`":
                i = self.backquote(i + 1)
            elif char == "$":
                i = self.dollar(i)
            else:
                i += 1
        return min(i, n)

    def single_quote(self, i: int) -> int:
        end = self.text.find("'", i)
        if end < 0:
            raise self.fail("an unterminated ' quote", i - 1)
        return end + 1

    def ansi_quote(self, i: int) -> int:
        text = self.text
        while i < len(text):
            if text[i] == "\\":
                i += 2
            elif text[i] == "'":
                return i + 1
            else:
                i += 1
        raise self.fail("an unterminated $' quote")

    def double_quote(self, i: int) -> int:
        text = self.text
        start = i - 1
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
            elif char == '"':
                return i + 1
            elif char == "`":
                i = self.backquote(i + 1)
            elif char == "$":
                i = self.dollar(i)
            else:
                i += 1
        raise self.fail('an unterminated " quote', start)

    def backquote(self, i: int) -> int:
        text = self.text
        start = i - 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
            elif text[i] == "`":
                return i + 1
            else:
                i += 1
        raise self.fail("an unterminated ` quote", start)

    def dollar(self, i: int) -> int:
        """The end of the expansion or quote that starts with the ``$`` at *i*."""
        text = self.text
        if text.startswith("$'", i):
            return self.ansi_quote(i + 2)
        if text.startswith('$"', i):
            return self.double_quote(i + 2)
        if text.startswith("$((", i):
            try:
                return self.arithmetic(i + 3)
            except BashSyntaxError:
                pass  # bash reads it again as $( ( ... ) ... ), a subshell in a command substitution
        if text.startswith("$(", i):
            return self.substitution(i + 2)
        if text.startswith("${", i):
            return self.parameter(i + 2)
        return i + 1

    def parameter(self, i: int) -> int:
        # bash ends ${ at the first unquoted "}" (plain braces inside do not nest).
        text = self.text
        start = i - 2
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
            elif char == "}":
                return i + 1
            elif char == "'":
                i = self.single_quote(i + 1)
            elif char == '"':
                i = self.double_quote(i + 1)
            elif char == "`":
                i = self.backquote(i + 1)
            elif char == "$":
                i = self.dollar(i)
            else:
                i += 1
        raise self.fail("an unterminated ${", start)

    def arithmetic(self, i: int) -> int:
        """The end of an arithmetic expression whose ``((`` ends just before *i*."""
        text = self.text
        start, depth = i - 2, 0
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
            elif char == "(":
                depth += 1
                i += 1
            elif char == ")":
                if depth == 0:
                    if not text.startswith("))", i):
                        raise self.fail("an arithmetic (( closed by a single )", i)
                    return i + 2
                depth -= 1
                i += 1
            elif char == "'":
                i = self.single_quote(i + 1)
            elif char == '"':
                i = self.double_quote(i + 1)
            elif char == "`":
                i = self.backquote(i + 1)
            elif char == "$":
                i = self.dollar(i)
            else:
                i += 1
        raise self.fail("an unterminated ((", start)

    def arithmetic_command(self, i: int) -> int | None:
        """The end of a ``(( ))`` command whose first ``(`` ends just before *i*; None if bash reads two ``(``."""
        if not self.text.startswith("(", i):
            return None
        try:
            return self.arithmetic(i + 1)
        except BashSyntaxError:
            return None

    @abstractmethod
    def substitution(self, i: int) -> int:
        """The end of a ``$( )``, ``<( )`` or ``>( )`` whose ``(`` ends just before *i*: a whole command list.

        The grammar reads it (:class:`hops_timetable.core.bash_grammar.Reader`): a word can hold commands.
        """

    def read_heredoc_bodies(self) -> None:
        text = self.text
        for delimiter, strip_tabs in self.heredocs:
            # bash warns and ends an unterminated here-document at the end of the text, and runs the command.
            while self.i < len(text):
                end = text.find("\n", self.i)
                line = text[self.i :] if end < 0 else text[self.i : end]
                self.i = len(text) if end < 0 else end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self.heredocs = []


def is_fd(word: str) -> bool:
    return word.isdigit() or (word.startswith("{") and word.endswith("}") and word[1:-1].isidentifier())


def is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    name = name.removesuffix("+")
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]
    return bool(equals) and name.isidentifier()


def literal(word: str) -> str | None:
    """The word after quote removal, or None when it holds an expansion whose value only bash knows."""
    # A glob could match a file name; a lone "[" matches nothing and is the test built-in.
    if (any(char in word for char in "$`*?[") and word != "[") or word.startswith("~"):
        return None
    try:
        parts = shlex.split(word, comments=False, posix=True)
    except ValueError:
        return None
    return parts[0] if len(parts) == 1 else None


def unquoted_heredoc_word(word: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(word):
        char = word[i]
        if char == "\\" and i + 1 < len(word):
            out.append(word[i + 1])
            i += 2
        elif char in "'\"":
            end = word.find(char, i + 1)
            end = len(word) if end < 0 else end
            out.append(word[i + 1 : end])
            i = end + 1
        elif char == "$" and word.startswith(("$'", '$"'), i):
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)
