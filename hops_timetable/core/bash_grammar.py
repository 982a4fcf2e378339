"""bash's commands: lists, pipelines, compound and simple commands, as bash's grammar reads them.

A recursive-descent reader over :class:`~hops_timetable.core.bash_words.Lexer` that keeps only what placing an
argument needs: the complete commands, each an ``&&``/``||`` list of pipelines and what ended it, and of each
simple command where it ends, whether it has a command word, that word without quotes and how many words follow.
Which of them is the job is not decided here (:mod:`hops_timetable.core.bash_append`). A text bash would not
parse, and a construct this reader does not know (``coproc``, extended globs, ``for ... { }``), raise
:class:`~hops_timetable.core.bash_words.BashSyntaxError`. Pure: no Airflow import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hops_timetable.core.bash_words import (
    OPERATORS,
    Lexer,
    Token,
    is_assignment,
    is_fd,
    literal,
    unquoted_heredoc_word,
)

__all__ = ["Command", "CompleteCommand", "Compound", "Script", "SimpleCommand", "read_script"]

_REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"})
_RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "{", "}", "!",
     "[[", "function", "time", "select", "coproc"}
)  # fmt: skip


@dataclass
class SimpleCommand:
    start: int
    end: int  # just after its last word or redirection
    named: bool  # it has a command word (not only assignments and redirections)
    name: str | None  # that word without quotes; None when it holds an expansion only bash can resolve
    arguments: int  # words after the command word


@dataclass
class Compound:
    kind: str  # the word or operator that opens it: "if", "while", "{", "(", "((", "[[", "function", ...
    start: int
    inner: list[SimpleCommand] = field(default_factory=list)  # every simple command inside, nested ones included


Command = SimpleCommand | Compound


@dataclass
class CompleteCommand:
    """One complete command: an ``&&``/``||`` list of pipelines, and what ended it."""

    commands: list[Command]
    terminator: str  # ";", "&", "\n" or ""


@dataclass
class Script:
    """A whole command text: its complete commands, and every simple command read, in order (not those inside
    substitutions)."""

    commands: list[CompleteCommand]
    simples: list[SimpleCommand]


def read_script(text: str) -> Script:
    """*text* read as bash reads it; raises :class:`~hops_timetable.core.bash_words.BashSyntaxError`."""
    reader = Reader(text)
    items = reader.command_list((), ())
    token = reader.peek()
    if token.kind != "eof":
        raise reader.fail(f"an unexpected {token.text!r}", token.start)
    return Script(items, reader.simples)


class Reader(Lexer):
    """A recursive-descent reader of bash's grammar that keeps only what placing an argument needs."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.simples: list[SimpleCommand] = []  # every simple command read, in order (substitutions excluded)

    def substitution(self, i: int) -> int:
        saved_i, saved_peek, saved_simples = self.i, self.peeked, self.simples
        self.i, self.peeked, self.simples = i, None, []
        try:
            self.command_list(stop_words=(), stop_ops=(")",))
            if not self.next().is_op(")"):
                raise self.fail("an unterminated $( or <(", i - 2)
            return self.i
        finally:
            self.i, self.peeked, self.simples = saved_i, saved_peek, saved_simples

    def skip_newlines(self) -> None:
        while self.peek().kind == "newline":
            self.next()

    def at_stop(self, stop_words: Sequence[str], stop_ops: Sequence[str]) -> bool:
        token = self.peek()
        return token.kind == "eof" or token.is_op(*stop_ops) or token.is_word(*stop_words)

    def command_list(self, stop_words: Sequence[str], stop_ops: Sequence[str]) -> list[CompleteCommand]:
        items: list[CompleteCommand] = []
        while True:
            self.skip_newlines()
            if self.at_stop(stop_words, stop_ops):
                return items
            commands = self.and_or()
            token = self.peek()
            if token.is_op(";", "&"):
                self.next()
                items.append(CompleteCommand(commands, token.text))
            elif token.kind == "newline":
                items.append(CompleteCommand(commands, "\n"))
            else:
                items.append(CompleteCommand(commands, ""))
                if not self.at_stop(stop_words, stop_ops):
                    raise self.fail(f"an unexpected {token.text!r}", token.start)

    def and_or(self) -> list[Command]:
        commands = self.pipeline()
        while self.peek().is_op("&&", "||"):
            self.next()
            self.skip_newlines()
            commands += self.pipeline()
        return commands

    def pipeline(self) -> list[Command]:
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

    def command(self) -> Command:
        token = self.peek()
        if token.is_op("("):
            self.next()
            first = len(self.simples)
            end = self.arithmetic_command(token.end)
            if end is not None:
                self.i = end
                compound = Compound("((", token.start)
            else:
                self.command_list((), (")",))
                if not self.next().is_op(")"):
                    raise self.fail("a ( subshell not closed by )", token.start)
                compound = Compound("(", token.start, self.simples[first:])
        elif token.kind == "word" and token.text in _RESERVED:
            compound = self.reserved(token)
        else:
            return self.simple()
        self.redirections()
        return compound

    def reserved(self, token: Token) -> Compound:
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
        return Compound(word, start, self.simples[first:])

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

    def function_body(self, start: int) -> Compound:
        if self.peek().is_op("("):
            self.next()
            if not self.next().is_op(")"):
                raise self.fail("a function name followed by '(' without ')'", start)
        self.skip_newlines()
        first = len(self.simples)
        body = self.command()
        if not isinstance(body, Compound):
            raise self.fail("a function body that is not a compound command", start)
        return Compound("function", start, self.simples[first:])

    def redirections(self) -> None:
        while True:
            token = self.peek()
            if token.kind == "word" and self.fd_before_redirection(token):
                self.next()
            elif token.is_op(*_REDIRECTIONS):
                self.redirection()
            else:
                return

    def fd_before_redirection(self, word: Token) -> bool:
        """Whether *word* is an fd number or ``{name}`` written right before a redirection operator."""
        after = self.text[word.end : word.end + 3]
        operator = next((op for op in OPERATORS if after.startswith(op)), None)
        return operator in _REDIRECTIONS and not after.startswith(("<(", ">(")) and is_fd(word.text)

    def redirection(self) -> int:
        operator = self.next()
        target = self.next()
        if target.kind != "word":
            raise self.fail(f"a {operator.text!r} redirection without a word", operator.start)
        if operator.text in ("<<", "<<-"):
            self.heredocs.append((unquoted_heredoc_word(target.text), operator.text == "<<-"))
        return target.end

    def simple(self) -> Command:
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
                elif not is_assignment(token.text):
                    named, name = True, literal(token.text)
                    if self.peek().is_op("(") and not self.text.startswith("((", self.peek().start):
                        return self.function_definition(token)
            else:
                break
        if end == start:
            raise self.fail(f"an unexpected {self.peek().text or 'end of the command'!r}", start)
        simple = SimpleCommand(start, end, named, name, arguments)
        self.simples.append(simple)
        return simple

    def function_definition(self, name: Token) -> Compound:
        compound = self.function_body(name.start)
        self.redirections()
        return compound
