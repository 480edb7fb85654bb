"""The English the agent reads is in one table (agent/lexicon.py), and each entry still finds what it was written for.

The scan reads the agent's sources with ``ast``: a regular expression whose pattern joins two alphabetic words
with ``|`` ("thanks|cheers", "summar|tl;dr") is English and belongs in the lexicon, and so is a list of four or
more lower-case words. The shapes below are allowed where they are, each for its reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gaia_lite.agent.lexicon import LEXICON, Phrase, Words

AGENT = Path(__file__).resolve().parents[2] / "gaia_lite" / "agent"
_RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
_ALTERNATION = re.compile(r"[A-Za-z]{2,}[\s)]*\|[\s(?:]*[A-Za-z]{2,}")
_LOWER_WORD = re.compile(r"[a-z][a-z0-9]*")

# file:name -> why a pattern with words in it is a shape, not English
SHAPES = {
    "fallback.py:_FIELD_LABEL": "our tools' own result field names (text=, file_path=)",
    "fallback.py:_TEMP_PATH": "temporary folders' paths (/tmp, /var/folders)",
    "evidence.py:_FILE_ARG": "our tools' argument names (file_path, image_path)",
    "judge/form.py:_WRITTEN_CALL": "the JSON keys a written call names its tool and arguments with",
    "grammar.py:_TYPES": "JSON Schema's type names",
    "results.py:_TEXT_KEYS": "our tools' own result field names",
    "results.py:TO_THE_MODEL": "our tools' own result labels (status:, hint:, note:)",
}


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    found.update({t.id: v for t, v in zip(target.elts, node.value.elts) if isinstance(t, ast.Name)})
    return found


def _text(node: ast.AST, constants: dict[str, ast.expr], depth: int = 0) -> str:
    """The pattern a regular expression call is given, with module constants and f-string parts filled in."""
    if depth > 6:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v, constants, depth + 1) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _text(node.value, constants, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left, constants, depth + 1) + _text(node.right, constants, depth + 1)
    if isinstance(node, ast.Name) and node.id in constants:
        return _text(constants[node.id], constants, depth + 1)
    return ""


def _word_list(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "frozenset", "set", "tuple", "list") and node.args:
        return _word_list(node.args[0])
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return words if len(words) == len(node.elts) else []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return node.func.value.value.split()
    return []


def _owner(tree: ast.Module, node: ast.AST) -> str:
    """The module constant or function a node is in (what SHAPES names it by)."""
    for top in tree.body:
        if top.lineno <= node.lineno <= (top.end_lineno or top.lineno):
            if isinstance(top, ast.Assign) and isinstance(top.targets[0], ast.Name):
                return top.targets[0].id
            return getattr(top, "name", "?")
    return "?"


def english_in(path: Path, root: Path = AGENT) -> list[str]:
    """``file:name`` (the file under ``root``) of each English phrase pattern or word list in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = _constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "re" and node.func.attr in _RE_CALLS and node.args:
            pattern = re.sub(r"\\[A-Za-z]", " ", _text(node.args[0], constants))
            if _ALTERNATION.search(pattern):
                found.append(f"{path.relative_to(root).as_posix()}:{_owner(tree, node)}")
        elif isinstance(node, ast.Assign):
            words = _word_list(node.value)
            if len(words) >= 4 and all(_LOWER_WORD.fullmatch(w) for w in words):
                found.append(f"{path.relative_to(root).as_posix()}:{_owner(tree, node)}")
    return found


def test_no_module_of_the_agent_but_the_lexicon_holds_an_english_phrase_pattern() -> None:
    found = [f for path in sorted(AGENT.rglob("*.py")) if path != AGENT / "lexicon.py" for f in english_in(path)]
    stray = sorted(set(found) - set(SHAPES))
    assert not stray, ("English phrase patterns or word lists outside agent/lexicon.py; move each into the lexicon "
                       "with the messages it was written for, or list it in SHAPES with why it is a shape:\n"
                       + "\n".join(stray))
    stale = sorted(set(SHAPES) - set(found))
    assert not stale, f"SHAPES names patterns that are gone or no longer have words in them: {stale}"


def test_the_ungrounded_figure_reads_its_english_from_the_lexicon_too() -> None:
    """eval/grounding.py (``eval tasks``' ungrounded_turns) reads names and topic changes through the lexicon; its
    one pattern with words is file extensions (txt|md|csv ...), a shape."""
    grounding = AGENT.parent / "eval" / "grounding.py"
    assert english_in(grounding, grounding.parent) == ["grounding.py:_FILE"]


def test_the_scan_finds_english_where_it_is(tmp_path: Path) -> None:
    """The rule would pass on an empty scan: it must find the shapes English came in before the lexicon."""
    source = tmp_path / "guards.py"
    source.write_text(
        'import re\n'
        '_THANKS = re.compile(r"(?i)^\\W*(?:thanks|thank you|cheers)\\b")\n'
        '_NUMBER_WORDS = "one|two|three"\n'
        '_FIGURE = re.compile(rf"\\d|\\b(?:{_NUMBER_WORDS})\\b")\n'
        '_STOP = frozenset("a an the of to".split())\n'
        'def summary(q):\n'
        '    return re.search(r"\\bsummar|\\btl;?dr\\b", q)\n'
        '_JSON = re.compile(r\'\\s*\\{\\s*"([\\w ]+)"\\s*:\')\n', encoding="utf-8")
    assert sorted(english_in(source, tmp_path)) == ["guards.py:_FIGURE", "guards.py:_STOP", "guards.py:_THANKS", "guards.py:summary"]


@pytest.mark.parametrize("entry", [e for e in LEXICON.values() if isinstance(e, Phrase)], ids=lambda e: e.name)
def test_each_phrase_finds_the_messages_it_was_written_for(entry: Phrase) -> None:
    assert entry.written_for, f"{entry.name}: say which real messages or replies it was written for"
    missed = [text for text in entry.written_for if entry.search(text) is None]
    assert not missed, f"{entry.name} no longer finds: {missed}"


@pytest.mark.parametrize("entry", [e for e in LEXICON.values() if isinstance(e, Words)], ids=lambda e: e.name)
def test_each_word_list_holds_a_word_of_the_texts_it_was_written_for(entry: Words) -> None:
    assert entry.written_for, f"{entry.name}: say which real messages or replies it was written for"
    missed = [t for t in entry.written_for if not set(re.findall(r"[\w/']+", t.lower())) & entry.words]
    assert not missed, f"{entry.name} holds no word of: {missed}"


def test_the_table_names_each_entry_once_by_its_own_name() -> None:
    import gaia_lite.agent.lexicon as lexicon

    constants = {k: v for k, v in vars(lexicon).items() if isinstance(v, (Phrase, Words))}
    assert sorted(e.name for e in constants.values()) == sorted(LEXICON)
    assert all(name.lower() == entry.name for name, entry in constants.items())


