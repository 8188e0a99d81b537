"""The buyer's purchase order and cost centre reach the contract annex's header (the PDF's
text), where the request states them; its budget stays out of a contract the provider reads; a
request without them keeps its old snapshot."""

from __future__ import annotations

from decimal import Decimal

import pytest

from annexes.document.snapshot import request_part
from annexes.models import AnnexJobStatus
from bids.models import CapacityRequest
from tests.annexes.test_annex_render import _generate, _text
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


def test_the_contract_annex_carries_the_purchase_order_and_cost_centre_not_the_budget(
    awarded, buyer, django_capture_on_commit_callbacks
):
    CapacityRequest.objects.filter(pk=awarded.request.pk).update(
        po_reference="PO-2027-0042", cost_centre="CC-ML-7", budget_usd=Decimal("250000.00")
    )
    awarded.request.refresh_from_db()
    job = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    assert job.status == AnnexJobStatus.DONE, job.error
    text = _text(job.annex).replace("\n", " ")
    assert "Purchase order PO-2027-0042" in text
    assert "Cost centre CC-ML-7" in text
    assert "250000" not in text and "Budget" not in text
    assert "budget_usd" not in job.annex.snapshot["request"]


def test_a_request_without_purchasing_references_keeps_its_snapshot():
    part = request_part(CapacityRequestFactory(), both_parties=False)
    assert not {"budget_usd", "cost_centre", "po_reference"} & set(part)
