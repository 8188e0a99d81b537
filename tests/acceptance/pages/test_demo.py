from __future__ import annotations

import pytest

from acceptance.demo import seed_fixture_demo
from acceptance.models import Acknowledgement
from acceptance.selectors.fixtures import acknowledgements_for_bids
from bids.models import CapacityRequest
from contracts.models import HandoffTerms
from demo.seed import REQUEST_TITLE, seed_demo

pytestmark = pytest.mark.django_db


def test_the_demo_request_gets_a_fixture_terms_and_two_acknowledgements():
    seed_demo()
    req = CapacityRequest.objects.get(title=REQUEST_TITLE)
    version = seed_fixture_demo(req)
    req.refresh_from_db()
    assert version.number == 1
    assert HandoffTerms.objects.get(request=req).version == 2
    again = seed_fixture_demo(req)
    assert again.pk == version.pk
    by_name = {b.provider.name: b.pk for b in req.bids.select_related("provider")}
    result = acknowledgements_for_bids(by_name.values())
    assert result[by_name["Aurora GPU Cloud"]] == ("accepted", 0)
    assert result[by_name["Northwind Compute"]] == ("accepted_with_exceptions", 2)
    assert result[by_name["Pacifica Neocloud"]] == ("not_acknowledged", 0)


def test_the_demo_acknowledgements_name_each_providers_incident_owner():
    seed_demo()
    req = CapacityRequest.objects.get(title=REQUEST_TITLE)
    seed_fixture_demo(req)
    owners = {
        a.bid.provider.name: (a.provider_owner_name, a.provider_owner_contact)
        for a in Acknowledgement.objects.filter(bid__request=req).select_related("bid__provider")
    }
    assert owners == {
        "Aurora GPU Cloud": (
            "Aurora NOC duty manager",
            "noc@aurora-gpu-cloud.example · +358 9 555 0100",
        ),
        "Northwind Compute": (
            "Nils Berg (site reliability lead)",
            "oncall@northwind-compute.example",
        ),
    }
    terms = HandoffTerms.objects.get(request=req)
    assert terms.buyer_owner_name.startswith("Alice Moreau") and terms.buyer_owner_contact
