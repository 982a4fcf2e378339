"""Appending job arguments to a bash command, as Hopsworks appends them to a job's arguments.

The arguments must reach the job invocation, so this module reads the command as bash's grammar does (quotes,
escapes, line continuations, comments, here-documents and here-strings, ``$( )``, ``${ }``, ``$(( ))``, backquotes,
process substitutions ``<( )`` and ``>( )``, redirections, pipelines, ``&&``/``||`` lists and the compound
commands) and decides which simple command is the job:

1. The job is in the command's last complete command: what follows the last top-level ``;``, ``&`` or newline
   (comments, a trailing ``;`` and here-document bodies are not commands). Ended by ``&``, it runs in the
   background: refused.
2. In that ``&&``/``||`` list or pipeline, the commands in :data:`NOT_THE_JOB` (shell built-ins that run no
   program, and ``cat``, ``tee``, ``sleep``, ``mkdir``, ...), commands with no name (only assignments or
   redirections), ``[[ ]]``, ``(( ))``, function definitions, and compound commands made only of those, are not the
   job. The one simple command left is the job: ``job.sh a || true`` becomes ``job.sh a -start_time X || true``,
   ``cd /srv && job.sh a`` and ``job.sh a 2>&1 | tee log`` take it after ``a`` and after ``2>&1``.
3. When nothing is left, a last complete command that is a single simple command is the job only if no earlier
   command could be (``echo "job arguments:"`` stands for a job, but ``job.sh a; echo done`` is refused).
4. Everything else is refused with :class:`LegacyArgsError` saying why and how to write it: two commands that
   could both be the job (``prepare.sh && job.sh a``), a job inside a compound command (``if``, loops, ``{ }``,
   ``( )``, ``case``), a background job, a command bash would not parse, and a last word ending in a lone
   backslash (bash reads it as a literal backslash; an argument after it would join that word).

The arguments go right after the job's last word or redirection (bash takes arguments after redirections), on the
same line, so a comment, the rest of the list and here-document bodies stay where they were. Constructs bash
accepts but this reader does not (``coproc``, extended globs, ``for ... { }``) are refused rather than
guessed. Pure: no Airflow import.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["NOT_THE_JOB", "LegacyArgsError", "append_arguments", "check_appendable"]

#: Commands that are never the job: they run no program of their own (or only copy, wait or make files).
NOT_THE_JOB = frozenset(
    {
        ":", "[", "alias", "break", "cat", "cd", "continue", "date", "declare", "echo", "exit", "export", "false",
        "let", "local", "logger", "mkdir", "popd", "printf", "pushd", "read", "readonly", "return", "rm", "set",
        "shift", "shopt", "sleep", "tee", "test", "touch", "trap", "true", "typeset", "ulimit", "umask", "unalias",
        "unset", "wait",
    }
)  # fmt: skip

_HOW = 'pass the argument yourself instead of legacy_args, for example: job.sh a -start_time "$HOPS_LOGICAL_DATE"'
_METACHARS = frozenset(" \t\n;&|()<>")
# Longest first, so that the first match is bash's token.
_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "&>", "||", "|&", "<<", "<&", "<>", ">>", ">&", ">|",
    ";", "&", "|", "(", ")", "<", ">",
)  # fmt: skip
_REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"})
_RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "{", "}", "!",
     "[[", "function", "time", "select", "coproc"}
)  # fmt: skip


class LegacyArgsError(ValueError):
    """The legacy arguments cannot be appended to this command safely."""


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "op", "newline" or "eof"
    text: str
    start: int
    end: int

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops


@dataclass
class _Simple:
    start: int
    end: int  # just after its last word or redirection
    named: bool  # it has a command word (not only assignments and redirections)
    name: str | None  # that word without quotes; None when it holds an expansion only bash can resolve
    arguments: int  # words after the command word

    @property
    def is_job(self) -> bool:
        # "exec" with only redirections changes the shell's own files and runs nothing.
        return self.named and self.name not in NOT_THE_JOB and not (self.name == "exec" and not self.arguments)


@dataclass
class _Compound:
    kind: str
    start: int
    inner: list[_Simple] = field(default_factory=list)  # every simple command inside, nested ones included

    @property
    def may_hold_the_job(self) -> bool:
        return self.kind != "function" and any(simple.is_job for simple in self.inner)


_Command = _Simple | _Compound


@dataclass
class _Item:
    """One complete command: an ``&&``/``||`` list of pipelines, and what ended it."""

    commands: list[_Command]
    terminator: str  # ";", "&", "\n" or ""


class _Reader:
    """A recursive-descent reader of bash's grammar that keeps only what placing an argument needs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.peeked: _Token | None = None
        self.heredocs: list[tuple[str, bool]] = []  # delimiters waiting for the next newline, and whether <<-
        self.simples: list[_Simple] = []  # every simple command read, in order (substitutions excluded)

    # Lexing ----------------------------------------------------------------------------------------------------

    def fail(self, what: str, at: int | None = None) -> LegacyArgsError:
        at = self.i if at is None else at
        return LegacyArgsError(
            f"it cannot be read: {what} at offset {at} (a bash syntax error, or coproc or an extended glob, which "
            "this reader refuses rather than guesses)"
        )

    def peek(self) -> _Token:
        if self.peeked is None:
            self.peeked = self.lex()
        return self.peeked

    def next(self) -> _Token:
        token = self.peek()
        self.peeked = None
        return token

    def lex(self) -> _Token:
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
            return _Token("eof", "", n, n)
        if text[start] == "\n":
            self.i += 1
            self.read_heredoc_bodies()
            return _Token("newline", "\n", start, start + 1)
        if not text.startswith(("<(", ">("), start):
            for op in _OPERATORS:
                if text.startswith(op, start):
                    self.i += len(op)
                    return _Token("op", op, start, self.i)
        self.i = self.word_end(start)
        return _Token("word", text[start : self.i], start, self.i)

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
            except LegacyArgsError:
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
        except LegacyArgsError:
            return None

    def substitution(self, i: int) -> int:
        """The end of a ``$( )``, ``<( )`` or ``>( )`` whose ``(`` ends just before *i*: a whole command list."""
        saved_i, saved_peek, saved_simples = self.i, self.peeked, self.simples
        self.i, self.peeked, self.simples = i, None, []
        try:
            self.command_list(stop_words=(), stop_ops=(")",))
            if not self.next().is_op(")"):
                raise self.fail("an unterminated $( or <(", i - 2)
            return self.i
        finally:
            self.i, self.peeked, self.simples = saved_i, saved_peek, saved_simples

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

    # Parsing ---------------------------------------------------------------------------------------------------

    def skip_newlines(self) -> None:
        while self.peek().kind == "newline":
            self.next()

    def at_stop(self, stop_words: Sequence[str], stop_ops: Sequence[str]) -> bool:
        token = self.peek()
        return token.kind == "eof" or token.is_op(*stop_ops) or token.is_word(*stop_words)

    def command_list(self, stop_words: Sequence[str], stop_ops: Sequence[str]) -> list[_Item]:
        items: list[_Item] = []
        while True:
            self.skip_newlines()
            if self.at_stop(stop_words, stop_ops):
                return items
            commands = self.and_or()
            token = self.peek()
            if token.is_op(";", "&"):
                self.next()
                items.append(_Item(commands, token.text))
            elif token.kind == "newline":
                items.append(_Item(commands, "\n"))
            else:
                items.append(_Item(commands, ""))
                if not self.at_stop(stop_words, stop_ops):
                    raise self.fail(f"an unexpected {token.text!r}", token.start)

    def and_or(self) -> list[_Command]:
        commands = self.pipeline()
        while self.peek().is_op("&&", "||"):
            self.next()
            self.skip_newlines()
            commands += self.pipeline()
        return commands

    def pipeline(self) -> list[_Command]:
        prefixed = False
        while self.peek().is_word("!", "time"):
            prefixed = True
            if self.next().text == "time" and self.peek().is_word("-p"):
                self.next()
        token = self.peek()
        if prefixed and (token.kind in ("newline", "eof") or token.is_op(";", "&", "&&", "||", ")")):
            return []  # bash accepts a bare "!" or "time": an empty pipeline
        commands = [self.command()]
        while self.peek().is_op("|", "|&"):
            self.next()
            self.skip_newlines()
            commands.append(self.command())
        return commands

    def command(self) -> _Command:
        token = self.peek()
        if token.is_op("("):
            self.next()
            first = len(self.simples)
            end = self.arithmetic_command(token.end)
            if end is not None:
                self.i = end
                compound = _Compound("((", token.start)
            else:
                self.command_list((), (")",))
                if not self.next().is_op(")"):
                    raise self.fail("a ( subshell not closed by )", token.start)
                compound = _Compound("(", token.start, self.simples[first:])
        elif token.kind == "word" and token.text in _RESERVED:
            compound = self.reserved(token)
        else:
            return self.simple()
        self.redirections()
        return compound

    def reserved(self, token: _Token) -> _Compound:
        word, start = token.text, token.start
        first = len(self.simples)
        self.next()
        if word == "{":
            self.command_list(("}",), ())
            self.expect_word("}", start)
        elif word == "if":
            self.command_list(("then",), ())
            self.expect_word("then", start)
            self.command_list(("elif", "else", "fi"), ())
            while self.peek().is_word("elif"):
                self.next()
                self.command_list(("then",), ())
                self.expect_word("then", start)
                self.command_list(("elif", "else", "fi"), ())
            if self.peek().is_word("else"):
                self.next()
                self.command_list(("fi",), ())
            self.expect_word("fi", start)
        elif word in ("while", "until"):
            self.command_list(("do",), ())
            self.loop_body(start)
        elif word in ("for", "select"):
            self.for_head(start)
            self.loop_body(start)
        elif word == "case":
            self.case(start)
        elif word == "[[":
            while not self.peek().is_word("]]"):
                if self.next().kind == "eof":
                    raise self.fail("an unterminated [[", start)
            self.next()
        elif word == "function":
            name = self.next()
            if name.kind != "word":
                raise self.fail("a function without a name", start)
            return self.function_body(start)
        else:
            raise self.fail(f"{word!r} where a command should start", start)
        return _Compound(word, start, self.simples[first:])

    def expect_word(self, word: str, start: int) -> None:
        token = self.next()
        if not token.is_word(word):
            found = token.text.strip() or "the end"
            raise self.fail(f"the compound command at offset {start} lacks {word!r} (found {found!r})", token.start)

    def loop_body(self, start: int) -> None:
        self.skip_newlines()
        self.expect_word("do", start)
        self.command_list(("done",), ())
        self.expect_word("done", start)

    def for_head(self, start: int) -> None:
        token = self.next()
        end = self.arithmetic_command(token.end) if token.is_op("(") else None
        if end is not None:
            self.i = end
        elif token.kind != "word":
            raise self.fail("a for loop without a variable", start)
        else:
            self.skip_newlines()
            if self.peek().is_word("in"):
                self.next()
                while self.peek().kind == "word":
                    self.next()
            elif self.peek().is_word("do"):
                return
        if self.peek().is_op(";") or self.peek().kind == "newline":
            self.next()

    def case(self, start: int) -> None:
        if self.next().kind != "word":
            raise self.fail("a case without a word", start)
        self.skip_newlines()
        self.expect_word("in", start)
        while True:
            self.skip_newlines()
            if self.peek().is_word("esac"):
                self.next()
                return
            if self.peek().is_op("("):
                self.next()
            while True:
                if self.next().kind != "word":
                    raise self.fail("a case pattern that is not a word", start)
                token = self.next()
                if token.is_op(")"):
                    break
                if not token.is_op("|"):
                    raise self.fail(f"an unexpected {token.text!r} in a case pattern", token.start)
            self.command_list(("esac",), (";;", ";&", ";;&"))
            if self.peek().is_op(";;", ";&", ";;&"):
                self.next()
            elif not self.peek().is_word("esac"):
                raise self.fail("an unterminated case", start)

    def function_body(self, start: int) -> _Compound:
        if self.peek().is_op("("):
            self.next()
            if not self.next().is_op(")"):
                raise self.fail("a function name followed by '(' without ')'", start)
        self.skip_newlines()
        first = len(self.simples)
        body = self.command()
        if not isinstance(body, _Compound):
            raise self.fail("a function body that is not a compound command", start)
        return _Compound("function", start, self.simples[first:])

    def redirections(self) -> None:
        while True:
            token = self.peek()
            if token.kind == "word" and self.fd_before_redirection(token):
                self.next()
            elif token.is_op(*_REDIRECTIONS):
                self.redirection()
            else:
                return

    def fd_before_redirection(self, word: _Token) -> bool:
        """Whether *word* is an fd number or ``{name}`` written right before a redirection operator."""
        after = self.text[word.end : word.end + 3]
        operator = next((op for op in _OPERATORS if after.startswith(op)), None)
        return operator in _REDIRECTIONS and not after.startswith(("<(", ">(")) and _is_fd(word.text)

    def redirection(self) -> int:
        operator = self.next()
        target = self.next()
        if target.kind != "word":
            raise self.fail(f"a {operator.text!r} redirection without a word", operator.start)
        if operator.text in ("<<", "<<-"):
            self.heredocs.append((_unquoted_heredoc_word(target.text), operator.text == "<<-"))
        return target.end

    def simple(self) -> _Command:
        start = self.peek().start
        name: str | None = None
        named, end, arguments = False, start, 0
        while True:
            token = self.peek()
            if token.is_op(*_REDIRECTIONS):
                end = self.redirection()
            elif token.kind == "word":
                self.next()
                end = token.end
                if self.fd_before_redirection(token):
                    continue  # part of the redirection, not a word of the command
                if named:
                    arguments += 1
                elif not _is_assignment(token.text):
                    named, name = True, _literal(token.text)
                    if self.peek().is_op("(") and not self.text.startswith("((", self.peek().start):
                        return self.function_definition(token)
            else:
                break
        if end == start:
            raise self.fail(f"an unexpected {self.peek().text or 'end of the command'!r}", start)
        simple = _Simple(start, end, named, name, arguments)
        self.simples.append(simple)
        return simple

    def function_definition(self, name: _Token) -> _Compound:
        compound = self.function_body(name.start)
        self.redirections()
        return compound


def _is_fd(word: str) -> bool:
    return word.isdigit() or (word.startswith("{") and word.endswith("}") and word[1:-1].isidentifier())


def _is_assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    name = name.removesuffix("+")
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]
    return bool(equals) and name.isidentifier()


def _literal(word: str) -> str | None:
    """The word after quote removal, or None when it holds an expansion whose value only bash knows."""
    # A glob could match a file name; a lone "[" matches nothing and is the test built-in.
    if (any(char in word for char in "$`*?[") and word != "[") or word.startswith("~"):
        return None
    try:
        parts = shlex.split(word, comments=False, posix=True)
    except ValueError:
        return None
    return parts[0] if len(parts) == 1 else None


def _unquoted_heredoc_word(word: str) -> str:
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


def _describe(command: str, simple: _Simple) -> str:
    return repr(command[simple.start : simple.end])


def _job(command: str) -> _Simple:
    """The job invocation of *command*, by the rule of the module docstring."""
    reader = _Reader(command)
    items = reader.command_list((), ())
    token = reader.peek()
    if token.kind != "eof":
        raise reader.fail(f"an unexpected {token.text!r}", token.start)
    if not items:
        raise LegacyArgsError("the command has no command to append the arguments to")
    last = items[-1]
    if last.terminator == "&":
        raise LegacyArgsError(
            "its last command runs in the background ('&'), so the task would end before the job; remove the '&'"
        )
    compounds = [c for c in last.commands if isinstance(c, _Compound) and c.may_hold_the_job]
    if compounds:
        raise LegacyArgsError(
            f"the job may be inside the {compounds[0].kind!r} compound command of its last command, where an "
            "argument at the end would not reach it"
        )
    candidates = [c for c in last.commands if isinstance(c, _Simple) and c.is_job]
    if len(candidates) > 1:
        names = ", ".join(_describe(command, c) for c in candidates)
        raise LegacyArgsError(
            f"more than one command of its last '&&'/'||' list or pipeline could be the job ({names}); the job "
            "must be the only one that is not a shell built-in such as true, echo or cd"
        )
    if candidates:
        job = candidates[0]
    else:
        only = last.commands[0] if len(last.commands) == 1 else None
        if not isinstance(only, _Simple) or not only.named:
            raise LegacyArgsError("its last command has no command that can be the job")
        earlier = [s for s in reader.simples if s.start < only.start and s.is_job]
        if earlier:
            raise LegacyArgsError(
                f"its last command {_describe(command, only)} is not a job, and an earlier one "
                f"({_describe(command, earlier[-1])}) would not receive the argument; make the job the last command"
            )
        job = only
    trailing = len(command[: job.end]) - len(command[: job.end].rstrip("\\"))
    if trailing % 2:
        raise LegacyArgsError(
            "it ends with a lone backslash, which bash keeps as a literal backslash; an argument after it would "
            "join that word"
        )
    return job


def _insertion_point(command: str) -> int:
    try:
        return _job(command).end
    except LegacyArgsError as exc:
        raise LegacyArgsError(
            f"legacy arguments cannot be appended to bash_command {command!r}: {exc}; {_HOW}"
        ) from None


def check_appendable(command: str) -> None:
    """Raise :class:`LegacyArgsError` (with how to write it instead) unless arguments can be appended safely."""
    _insertion_point(command)


def append_arguments(command: str, arguments: Sequence[str]) -> str:
    """*command* with *arguments*, shell-quoted, right after the job invocation's last word or redirection.

    Raises :class:`LegacyArgsError` where the job is not unambiguous (see the module docstring).
    """
    point = _insertion_point(command)
    if not arguments:
        return command
    return f"{command[:point]} {shlex.join(arguments)}{command[point:]}"
