"""The done-when test: a provider's usage CSV with exactly three planted errors — hours before
acceptance (line 2), a node billed during its outage (line 10), a wrong rate (line 11) — is
reconciled to exactly those three differences, each with its line.

Around them, what must not be flagged: an S2 incident on gpu-b01 (the terms count S1 and S3 as
downtime, not S2), egress and fees within the bid, and every other hour inside the term."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from billing.models import UsageState
from contracts.defaults import STANDARD
from engine.failures import terms_clocks
from incidents.models import Incident
from tests.billing.conftest import upload_and_map, usage_file

pytestmark = pytest.mark.django_db

# The standard terms' clocks, frozen on every incident as the product opens it.
CLOCKS = terms_clocks(STANDARD)


def _incident(reservation, severity, nodes, start_hour, end_hour):
    return Incident.objects.create(
        reservation=reservation,
        severity=severity,
        proposed_severity=severity,
        nodes=nodes,
        opened_at=datetime(2026, 3, 1, start_hour, tzinfo=UTC),
        restored_at=datetime(2026, 3, 1, end_hour, tzinfo=UTC),
        clocks=CLOCKS,
    )


def test_the_three_planted_errors_are_found_each_with_its_line(
    contracted, provider, django_capture_on_commit_callbacks
):
    reservation = contracted.reservation
    out = _incident(reservation, "S3", ["gpu-b02"], 9, 10)
    _incident(reservation, "S2", ["gpu-b01"], 7, 8)  # degraded, not down: still billed

    row = upload_and_map(
        reservation,
        provider.user,
        usage_file("usage_planted.csv"),
        django_capture_on_commit_callbacks,
    )

    assert row.state == UsageState.DONE, row.error
    found = sorted((d.line, d.rule) for d in row.differences.all())
    assert found == [(2, "before-clock"), (10, "node-out"), (11, "rate")]
    messages = {d.line: d.message for d in row.differences.all()}
    assert "before the clock started at 2026-03-01 06:00 UTC" in messages[2]
    assert f"incident #{out.pk} (S3)" in messages[10] and "1.00 h" in messages[10]
    assert "rate 2.75 is not the agreed 2.50" in messages[11]
    # Billed: 13 GPU-hour lines of 8 GPUs (12 × 20.00 + 22.00) + 120 egress + 250 fees = 632.00.
    # Allowed: the hour before the clock and the hour out are 0, line 11 is priced at the agreed
    # 8 × 2.50 = 20.00: 11 × 20.00 + 370.00 = 590.00.
    assert row.lines == 15
    assert row.totals["billed"] == "632.00"
    assert row.totals["allowed"] == "590.00"
    assert row.totals["over"] == "42.00"
    assert row.totals["net"] == "590.00"  # March stays above 99.9 %: no credit earned


def test_the_credits_of_the_months_billed_come_off_the_net(
    contracted, provider, django_capture_on_commit_callbacks
):
    """A 12-hour S1 across the allocation drops March below 99.9 %: the bill for March owes
    the delivery report's March credit, and the net is the allowed amount less it, never
    below zero."""
    from decimal import Decimal

    from delivery.selectors import delivery_for

    reservation = contracted.reservation
    Incident.objects.create(
        reservation=reservation, severity="S1", proposed_severity="S1", nodes=[],
        opened_at=datetime(2026, 3, 2, 0, tzinfo=UTC),
        restored_at=datetime(2026, 3, 2, 12, tzinfo=UTC), clocks=CLOCKS,
    )  # fmt: skip
    row = upload_and_map(
        reservation, provider.user, usage_file("usage_planted.csv"),
        django_capture_on_commit_callbacks,
    )  # fmt: skip
    march = next(
        m for m in delivery_for(reservation=reservation).report.months if m.label == "2026-03"
    )
    assert march.credit.value > 0
    assert row.totals["credit_months"] == ["2026-03"]
    assert Decimal(row.totals["credits"]) == march.credit.value
    # The March credit is larger than this bill allows: the net owed stops at zero, never below.
    owed = Decimal(row.totals["allowed"]) - march.credit.value
    assert Decimal(row.totals["net"]) == max(owed, Decimal(0))


def test_impossible_charges_are_refused_line_by_line_and_shown_in_words(
    contracted, provider, buyer, django_capture_on_commit_callbacks
):
    """The same node-hour twice, 1,000 GPUs on one node, a node not in the allocation and 500
    hours in a one-hour period: each its line and rule, each allowed only what was possible."""
    from django.urls import reverse

    header = "usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type\n"
    hour = "2026-03-01T{0:02d}:00:00Z,2026-03-01T{1:02d}:00:00Z,{2},{3},{4},2.50,{5},gpu\n"
    body = header + "".join(
        hour.format(*row)
        for row in [
            (6, 7, "gpu-b01", 8, 1, "20.00"),
            (6, 7, "gpu-b01", 8, 1, "20.00"),  # the same node-hour again
            (6, 7, "gpu-b02", 1000, 1, "2500.00"),  # a node has 8 GPUs
            (7, 8, "gpu-z99", 8, 1, "20.00"),  # not a node of this allocation
            (7, 8, "gpu-b02", 8, 500, "10000.00"),  # 4,000 GPU-hours in one hour on 8 GPUs
        ]
    )
    row = upload_and_map(
        contracted.reservation,
        provider.user,
        usage_file("impossible.csv", body.encode()),
        django_capture_on_commit_callbacks,
    )
    assert row.state == UsageState.DONE, row.error
    found = sorted((d.line, d.rule) for d in row.differences.all())
    assert found == [
        (3, "double-billed"), (4, "too-many-gpus"), (5, "unknown-node"), (6, "over-period")
    ]  # fmt: skip
    assert row.totals["billed"] == "12560.00"
    assert row.totals["allowed"] == "60.00"  # gpu-b01 once, gpu-b02 on 8 GPUs for each hour
    page = buyer.client().get(reverse("billing:usage-detail", args=[row.pk])).content.decode()
    assert "The same node-time is billed twice" in page
    assert "Node is not one of the contract&#x27;s nodes" in page
    assert "gpu-z99 is not a node of this allocation" in page
