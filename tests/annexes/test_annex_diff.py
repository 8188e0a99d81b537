"""The diff between two annex snapshots, as the versions page shows it."""

from __future__ import annotations

from annexes.document.diff import in_annex_order, snapshot_diff


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


def test_changes_read_as_the_annex_prints_them():
    """Section headings and the annex's labels, values formatted as printed, no raw keys."""
    old = {
        "baseline": {"evidence": [{"sha256": "a" * 64}] * 4},
        "request": {"bid_deadline": "2026-12-01T12:00:00+00:00", "sealed": False},
        "bid_revision": {"terms": {"spares_count": 1}},
    }
    new = {
        "baseline": {"evidence": [{"sha256": "a" * 64}] * 3 + [{"sha256": "b" * 64}]},
        "request": {"bid_deadline": "2026-12-03T09:30:00+00:00", "sealed": True},
        "bid_revision": {"terms": {"spares_count": 2}},
    }
    shown = [
        (c.section, c.label, c.old_text(), c.new_text())
        for c in in_annex_order(snapshot_diff(old, new))
    ]
    assert shown == [
        ("Allocation and term", "Bid deadline", "1 Dec 2026 12:00 UTC", "3 Dec 2026 09:30 UTC"),
        ("Allocation and term", "Sealed", "no", "yes"),
        ("The awarded offer", "Spare nodes", "1", "2"),
        ("Hand-over baseline", "Evidence › item 4 › SHA-256", "a" * 64, "b" * 64),
    ]


def test_two_instants_in_the_same_minute_show_the_seconds_that_differ():
    old, new = (
        {"acknowledgement": {"at": "2026-12-03T21:45:01+00:00"}},
        {"acknowledgement": {"at": "2026-12-03T21:45:40+00:00"}},
    )
    (change,) = snapshot_diff(old, new)
    assert (change.old_text(), change.new_text()) == (
        "2026-12-03T21:45:01+00:00",
        "2026-12-03T21:45:40+00:00",
    )
