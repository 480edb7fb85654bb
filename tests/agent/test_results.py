"""Tool results go back to the model as compact lines under a cap, not as a JSON dump."""

from __future__ import annotations

from gaia_lite.agent.results import compact_result


def test_a_file_list_is_one_line_per_entry() -> None:
    payload = {"status": "success", "path": "/w", "entries": [
        {"name": "docs", "type": "folder"}, {"name": "notes.md", "type": "file", "size": 23}]}
    assert compact_result(payload) == "status: success\npath: /w\nentries (2):\n- docs/\n- notes.md (23 B)"


def test_file_sizes_read_as_sizes_not_field_names() -> None:
    # the 0.5B model copied "size_bytes" into its list of files
    payload = {"entries": [{"name": "big.log", "type": "file", "size_bytes": 2_500_000, "modified": "2026-12-01"}]}
    assert compact_result(payload) == "entries (1):\n- big.log (2.4 MB, modified=2026-12-01)"


def test_times_read_as_a_person_writes_them() -> None:
    # the 0.5B model copied "modified=2026-12-02T04:08:11" for every file, and took seconds to write it
    payload = {"entries": [{"name": "notes.md", "type": "file", "size_bytes": 20, "modified": "2026-12-02T04:08:11"},
                           {"name": "link", "type": "symlink"}]}
    assert compact_result(payload) == "entries (2):\n- notes.md (20 B, modified 2026-12-02 04:08)\n- link (symlink)"


def test_a_search_hit_is_its_passage_first_then_its_source() -> None:
    passage = "Customers may return unused items within 45 days of delivery for a full refund."
    payload = {"chunks": [{"source_file": "/w/policies/returns.md", "page": 1, "relevance_score": 0.738,
                           "text": passage}]}
    assert compact_result(payload) == f"chunks (1):\n- {passage}\n  (source: /w/policies/returns.md, page=1)"


def test_text_stays_text_and_empty_fields_go() -> None:
    payload = {"status": "success", "content": "line 1\nline 2\n", "truncated": False, "note": ""}
    assert compact_result(payload) == "status: success\ncontent:\nline 1\nline 2\ntruncated: False"


def test_scalars_lists_and_nested_objects() -> None:
    payload = {"total": 425.0, "columns": ["q1", "q2"], "by_region": {"north": 120, "south": 150.5}}
    assert compact_result(payload) == "total: 425\ncolumns: q1, q2\nby_region: north=120, south=150.5"


def test_the_cap_says_how_much_was_cut() -> None:
    text = compact_result({"content": "x" * 10_000}, cap=1000)
    assert len(text) < 1100 and text.endswith("more characters not shown]")
    assert "9" in text.splitlines()[-1]  # 9,010 characters left out


def test_long_lists_are_cut_with_a_count() -> None:
    text = compact_result({"files": [{"name": f"f{i}.txt"} for i in range(100)]})
    assert "- f59.txt" in text and "- f60.txt" not in text and "(+40 more)" in text
