"""The diff between two annex snapshots, as the versions page shows it."""

from __future__ import annotations

from annexes.document.diff import snapshot_diff


def _rows(old, new):
    return [(c.kind, c.path, c.old_text(), c.new_text()) for c in snapshot_diff(old, new)]


def test_an_acceptance_that_appears_shows_as_what_it_added_only():
    old = {"acceptance": None, "price": "2.32"}
    new = {"acceptance": {"by": "alice", "kind": "accepted"}, "price": "2.32"}
    assert _rows(old, new) == [
        ("added", "acceptance.by", "", "alice"),
        ("added", "acceptance.kind", "", "accepted"),
    ]
    # And the reverse: a part that went away shows its leaves removed, not an empty 'added'.
    assert [kind for kind, *_ in _rows(new, old)] == ["removed", "removed"]


def test_list_items_sort_by_number():
    old = {"runs": [{"bw": i} for i in range(12)]}
    new = {"runs": [{"bw": i + 1} for i in range(12)]}
    paths = [path for _, path, *_ in _rows(old, new)]
    assert paths == [f"runs[{i}].bw" for i in range(12)]


def test_a_plain_value_change_keeps_both_sides():
    assert _rows({"clock": {"S1": 30}}, {"clock": {"S1": 15}}) == [
        ("changed", "clock.S1", "30", "15")
    ]
