"""Team evaluation over the API: my own view, every view's ranking, and the award's view."""

from __future__ import annotations

from typing import Any

import pytest

from evaluation.models import AwardBasis
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import score
from tests.evaluation.pages.test_team_evaluation import _closed

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored(world: Any) -> Any:
    assert score(world.request).status == "done"
    return world


COST_ONLY = {
    "effective_cost": 1,
    "fabric_placement": 0,
    "incident_sla": 0,
    "acceptance_terms": 0,
    "delivery_risk": 0,
}


def risk_first(world: Any) -> dict[str, Any]:
    return {
        "weights": {**COST_ONLY, "effective_cost": 20, "judged_delivery_risk": 80},
        "judgements": [
            {"bid": world.bid.pk, "criterion": "judged_delivery_risk", "score": 1},
            {
                "bid": world.rival_bid.pk,
                "criterion": "judged_delivery_risk",
                "score": 5,
                "comment": "Racks already installed.",
            },
        ],
    }


def mine(world: Any) -> str:
    return f"/api/v1/requests/{world.request.pk}/team/mine/"


def test_my_view_starts_from_the_request_weights_and_keeps_what_i_save(scored, buyer):
    client = token_client(buyer.user)
    first = client.get(mine(scored)).json()
    assert first["weights"]["effective_cost"] == 40 and first["judgements"] == []
    assert first["weights"]["judged_delivery_risk"] == 0 and first["updated_at"] is None
    saved = client.put(mine(scored), risk_first(scored), format="json")
    assert saved.status_code == 200, saved.json()
    again = client.get(mine(scored)).json()
    assert again["weights"]["judged_delivery_risk"] == 80
    assert {"bid": scored.rival_bid.pk, "criterion": "judged_delivery_risk", "score": 5,
            "comment": "Racks already installed."} in again["judgements"]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"judgements": [{"bid": 1, "criterion": "judged_delivery_risk", "score": 9}]}, "score"),
        ({"weights": {**COST_ONLY, "effective_cost": -1}}, "effective_cost"),
    ],
)
def test_bad_input_names_the_field(scored, buyer, change, field):
    body = {"weights": COST_ONLY, **change}
    response = token_client(buyer.user).put(mine(scored), body, format="json")
    assert response.status_code == 400
    assert field in str(response.json()["errors"])


def test_a_bid_of_another_request_is_refused_in_words(scored, buyer):
    body = {
        "weights": COST_ONLY,
        "judgements": [{"bid": 999, "criterion": "judged_acceptance_terms", "score": 3}],
    }
    response = token_client(buyer.user).put(mine(scored), body, format="json")
    assert response.status_code == 400
    assert "Bid 999 is not a submitted bid on this request." in str(response.json())


def test_the_summary_shows_every_ranking_the_disagreement_and_the_award_view(
    scored, buyer, buyer_colleague
):
    token_client(buyer.user).put(mine(scored), {"weights": COST_ONLY}, format="json")
    token_client(buyer_colleague.user).put(mine(scored), risk_first(scored), format="json")
    client = token_client(buyer.user)
    summary = client.get(f"/api/v1/requests/{scored.request.pk}/team/").json()
    assert summary["disagreement"] == (
        "alice ranks Northwind first, bob ranks Rival Cloud first; consensus: Rival Cloud."
    )
    views = {v["view"]: v for v in summary["views"]}
    assert [r["name"] for r in views["consensus"]["ranking"]] == ["Rival Cloud", "Northwind"]
    assert views[f"evaluator:{buyer_colleague.user.pk}"]["label"] == "bob"
    assert views["request"]["ranking"][0]["bid"] == scored.bid.pk
    assert summary["award_basis"] is None
    _closed(scored)
    url = f"/api/v1/requests/{scored.request.pk}/award/"
    body = {"bid": scored.rival_bid.pk, "view": "consensus"}
    assert client.post(url, body, format="json").status_code == 201
    assert AwardBasis.objects.get().followed
    summary = client.get(f"/api/v1/requests/{scored.request.pk}/team/").json()
    assert summary["award_basis"] == {
        "view": "consensus",
        "label": "Consensus of 2 evaluators",
        "first_in_view": "Rival Cloud",
        "followed": True,
    }


def test_an_unknown_view_is_refused_on_the_view_field(scored, buyer):
    _closed(scored)
    url = f"/api/v1/requests/{scored.request.pk}/award/"
    response = token_client(buyer.user).post(
        url, {"bid": scored.bid.pk, "view": "evaluator:999"}, format="json"
    )
    assert response.status_code == 400
    assert "No view 'evaluator:999'" in response.json()["errors"]["view"][0]
