"""A judged set from outside is checked whole before scoring: bad shapes are one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_lite.eval.judged_format import check_judged_set, load_judged_set
from gaia_lite.jsonfile import read_json

GOOD = {"tools": [{"name": "ls", "description": "list", "parameters": {"type": "object"}}],
        "cases": [{"id": 1, "query": "list files", "expected_tools": ["ls"], "match": "any", "history": []},
                  {"id": "b", "query": "hi"}]}


def test_a_set_in_the_shared_format_passes() -> None:
    check_judged_set(GOOD)


def test_every_shared_evaldata_set_passes() -> None:
    shared = Path(__file__).resolve().parents[3] / "shared" / "evaldata"
    sets = sorted(shared.glob("*.json"))
    if not sets:
        pytest.skip("shared/evaldata is not next to this checkout")
    for path in sets:
        assert load_judged_set(path)["cases"], path.name


def test_our_judged_set_passes() -> None:
    load_judged_set(Path(__file__).resolve().parents[1] / "data" / "judged_doc.json")


@pytest.mark.parametrize("data, wanted", [
    ([], 'non-empty "cases" list'),
    ({"cases": 5}, 'non-empty "cases" list'),
    ({"cases": []}, 'non-empty "cases" list'),
    ({"cases": ["x"]}, "case #1 is not an object"),
    ({"cases": [{"id": "a"}]}, 'case a "query" must be a string'),
    ({"cases": [{"query": "q"}]}, 'case #1 "id" must be'),
    ({"cases": [{"id": "a", "query": "q", "expected_tools": "ls"}]}, 'case a "expected_tools" must be a list'),
    ({"cases": [{"id": "a", "query": "q", "match": "some"}]}, 'case a "match" must be "all" or "any"'),
    ({"cases": [{"id": "a", "query": "q", "history": "earlier"}]}, 'case a "history" must be a list'),
    ({"cases": [{"id": "a", "query": "q"}], "tools": {"ls": {}}}, '"tools" must be a list'),
    ({"cases": [{"id": "a", "query": "q"}], "tools": [{"description": "x"}]}, 'tool #1 needs a non-empty string "name"'),
    ({"cases": [{"id": "a", "query": "q"}], "tools": [{"name": "ls", "parameters": "none"}]}, 'tool #1 "parameters"'),
])
def test_a_wrong_shape_names_the_place(data: object, wanted: str) -> None:
    with pytest.raises(ValueError, match=None) as exc:
        check_judged_set(data)
    assert wanted in str(exc.value)


def test_no_cases_is_fine_only_as_past_turns_to_learn_from() -> None:
    check_judged_set({"cases": []}, allow_empty=True)
    with pytest.raises(ValueError, match='non-empty "cases"'):
        check_judged_set({"cases": []})


def test_read_json_says_what_is_wrong_with_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{bad", encoding="utf-8")
    (tmp_path / "latin.json").write_bytes(b'{"a": "\xe9"}')
    cases = {"missing.json": "does not exist", "bad.json": "is not valid JSON: Expecting property name",
             "latin.json": "is not UTF-8 text"}
    for name, wanted in cases.items():
        with pytest.raises(ValueError) as exc:
            read_json(tmp_path / name)
        assert wanted in str(exc.value) and name in str(exc.value)
    (tmp_path / "ok.json").write_text(json.dumps(GOOD), encoding="utf-8")
    assert read_json(tmp_path / "ok.json") == GOOD
