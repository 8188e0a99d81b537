"""docs/availability.md, "A worked example": the numbers there, worked by hand, asserted here.

GIVEN 4 nodes × 8 GPUs at $2.00/GPU-h, $1,000 fees and $500 egress, term 1 Jan – 31 Mar 2026,
accepted 1 Jan, standard tiers (99.9/99/95 % → 10/25/100 %) and 5 % per clock breach;
an S1 on all four nodes on 10 Jan 08:00–14:00 (its 4 h restore clock breached), an S3 on gpu-03
on 5 Feb 10:00–22:00, and short-notice maintenance on gpu-01 and gpu-02 on 15 Mar 02:00–06:00
that the buyer agreed to.
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from delivery import selectors, services
from incidents import services as incident_services
from incidents.services.opening import incident_open_signal
from tests.delivery.helpers import NODES, example_reservation, utc

pytestmark = pytest.mark.django_db


def build(buyer, provider):
    reservation = example_reservation(buyer, provider)
    s1 = incident_open_signal(
        reservation=reservation, user=provider.user, severity="S1", nodes=" ".join(NODES),
        window_start=utc(1, 10, 8), signal="alert", summary="Fabric down", now=utc(1, 10, 8),
    )  # fmt: skip
    incident_services.incident_mark(incident=s1, user=provider.user, what="responded",
                                     now=utc(1, 10, 8, 10))  # fmt: skip
    incident_services.incident_mark(incident=s1, user=provider.user, what="restored",
                                     now=utc(1, 10, 14))  # fmt: skip
    incident_services.incident_set_times(
        incident=s1, user=buyer.user, last_checkpoint_at=utc(1, 10, 7, 30),
        revalidated_at=utc(1, 10, 14, 30), restarted_at=utc(1, 10, 15),
    )  # fmt: skip
    s3 = incident_open_signal(
        reservation=reservation, user=provider.user, severity="S3", nodes="gpu-03",
        window_start=utc(2, 5, 10), signal="drained-node", summary="GPU fell off the bus",
        now=utc(2, 5, 10),
    )  # fmt: skip
    incident_services.incident_mark(incident=s3, user=provider.user, what="responded",
                                     now=utc(2, 5, 10, 30))  # fmt: skip
    incident_services.incident_mark(incident=s3, user=provider.user, what="restored",
                                     now=utc(2, 5, 22))  # fmt: skip
    window = services.maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=utc(3, 15, 2),
        ends_at=utc(3, 15, 6), nodes="gpu-01 gpu-02", reason="Firmware update",
        now=utc(3, 14, 10),
    )  # fmt: skip
    assert window.short_notice  # 16 h of the 72 h the terms ask
    services.maintenance_agree(window=window, user=buyer.user, now=utc(3, 14, 12))
    return reservation


def test_the_worked_example_matches_the_document(buyer, provider):
    reservation = build(buyer, provider)
    delivery = selectors.delivery_for(reservation=reservation, now=utc(6, 1))
    report = delivery.report
    assert delivery.lanes == list(NODES)
    jan, feb, mar = report.months

    assert jan.scheduled_node_hours.value == D("2976")
    assert jan.down_node_hours.value == D("24")
    assert f"{jan.availability_pct.value:.3f}" == "99.194"
    assert jan.fees.value == D("47616.00")
    assert jan.tier_credit_pct.value == D("10") and jan.breaches == 1
    assert jan.credit_pct.value == D("15")
    assert jan.credit.value == D("7142.40")
    assert jan.lost_gpu_hours.value == D("240")

    assert feb.scheduled_node_hours.value == D("2688")
    assert feb.down_node_hours.value == D("12")
    assert f"{feb.availability_pct.value:.3f}" == "99.554"
    assert feb.fees.value == D("43008.00")
    assert feb.breaches == 0 and feb.credit_pct.value == D("10")
    assert feb.credit.value == D("4300.80")
    assert feb.lost_gpu_hours.value == D("96")

    assert mar.maintenance_node_hours.value == D("8")
    assert mar.down_node_hours.value == D("0")
    assert mar.availability_pct.value == D("100")
    assert mar.fees.value == D("47616.00") and mar.credit.value == D("0.00")

    assert report.accepted_gpu_hours.value == D("69120")
    assert report.fees.value == D("138240.00")
    assert report.prorated_extras.value == D("1500.00")
    assert report.credits.value == D("11443.20")
    assert report.paid.value == D("128296.80")
    assert report.lost_gpu_hours.value == D("336")
    assert report.useful_gpu_hours.value == D("68784")
    assert report.cost_per_useful_gpu_hour.value == D("1.8652")


def test_unagreed_short_notice_maintenance_would_have_been_downtime(buyer, provider):
    reservation = example_reservation(buyer, provider)
    services.maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=utc(3, 15, 2),
        ends_at=utc(3, 15, 6), nodes="gpu-01 gpu-02", reason="Firmware update",
        now=utc(3, 14, 10),
    )  # fmt: skip
    mar = selectors.delivery_for(reservation=reservation, now=utc(6, 1)).report.months[2]
    assert mar.maintenance_node_hours.value == 0 and mar.down_node_hours.value == 8
