"""core/bash_words.py and core/bash_grammar.py: a bash command read as bash reads it, what placing an argument needs.

The expected commands are written from bash's grammar (bash(1), SHELL GRAMMAR and QUOTING); that the arguments then
reach the job under a real bash is tests/test_operators_bash_append.py's part.
"""

from __future__ import annotations

import pytest

from hops_timetable.core.bash_grammar import Compound, SimpleCommand, read_script
from hops_timetable.core.bash_words import BashSyntaxError, is_assignment, literal, unquoted_heredoc_word


def simples(text: str) -> list[tuple[str | None, int, str]]:
    """Each simple command read: its name, its number of arguments and its text up to its end."""
    return [(s.name, s.arguments, text[s.start : s.end]) for s in read_script(text).simples]


def test_lists_pipelines_and_assignments() -> None:
    text = 'cd /srv && FOO=1 job.sh a "b c" 2>&1 | tee log; echo done # job.sh x'
    assert simples(text) == [
        ("cd", 1, "cd /srv"),
        ("job.sh", 2, 'FOO=1 job.sh a "b c" 2>&1'),
        ("tee", 1, "tee log"),
        ("echo", 1, "echo done"),
    ]
    first, last = read_script(text).commands
    assert (len(first.commands), first.terminator) == (3, ";")
    assert (len(last.commands), last.terminator) == (1, "")


def test_substitutions_and_here_documents_hold_no_command_of_the_script() -> None:
    assert simples('job.sh "$(other.sh x)" `date` <(cat f)') == [
        ("job.sh", 3, 'job.sh "$(other.sh x)" `date` <(cat f)')
    ]
    text = "cat <<'EOF' > out\njob.sh\nEOF\nrun.sh"
    assert [name for name, _, _ in simples(text)] == ["cat", "run.sh"]


def test_compound_commands_keep_the_simple_commands_inside() -> None:
    [item] = read_script("if test -f x; then job.sh a; fi 2>/dev/null").commands
    [compound] = item.commands
    assert isinstance(compound, Compound) and compound.kind == "if"
    assert [s.name for s in compound.inner] == ["test", "job.sh"]
    [item] = read_script("f() { job.sh; }").commands
    assert isinstance(item.commands[0], Compound) and item.commands[0].kind == "function"
    [item] = read_script("(( i++ ))").commands
    assert isinstance(item.commands[0], Compound) and item.commands[0].inner == []


def test_a_name_only_bash_can_resolve_is_none() -> None:
    [(name, _, _)] = simples('"$JOB" a')
    assert name is None
    [command] = read_script("> out").simples
    assert isinstance(command, SimpleCommand) and not command.named


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("job.sh 'a", "an unterminated ' quote at offset 7"),
        ('job.sh "a', 'an unterminated " quote at offset 7'),
        ("job.sh $(a", "an unterminated $( or <("),
        ("if true; then job.sh", "lacks 'fi'"),
        ("job.sh )", "an unexpected ')'"),
        ("coproc job.sh", "'coproc' where a command should start"),
    ],
)
def test_what_bash_would_not_parse_is_a_syntax_error_saying_where(text: str, problem: str) -> None:
    with pytest.raises(BashSyntaxError, match="it cannot be read: ") as caught:
        read_script(text)
    assert problem in str(caught.value)


def test_words() -> None:
    assert literal("'job.sh'") == "job.sh" and literal('jo"b.sh"') == "job.sh" and literal("[") == "["
    assert literal("$JOB") is None and literal("*.sh") is None and literal("~/job.sh") is None
    assert is_assignment("A=1") and is_assignment("a[1]+=x") and not is_assignment("=1") and not is_assignment("a-b=1")
    assert unquoted_heredoc_word("'EOF'") == "EOF" and unquoted_heredoc_word('E"O"\\F') == "EOF"
