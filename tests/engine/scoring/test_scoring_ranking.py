"""Ranking, disqualification, sensitivity, serialisation and the demo scenario."""

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from engine.scoring import (
    ROBUST_WIN_SHARE,
    BidOffer,
    ScoringInputError,
    ScoringResult,
    WeightError,
    Weights,
    compute_cost,
    result_to_dict,
    score_bids,
)
from engine.scoring.demo import (
    demo_bids,
    demo_cheap,
    demo_premium,
    demo_request,
    demo_wrong_region,
)
from engine.scoring.sensitivity import VERDICT_CLOSE, VERDICT_NONE, VERDICT_ROBUST, analyse


def effective(label: str, result: ScoringResult) -> float:
    price = result.by_label(label).cost.effective_price_per_useful_gpu_hour
    assert price is not None
    return float(price)


# --- the demo scenario ----------------------------------------------------------------------


def test_demo_premium_wins_and_wrong_region_is_disqualified() -> None:
    result = score_bids(demo_request(), demo_bids(), Weights())
    assert result.winner == "premium"
    assert [(b.label, b.rank) for b in result.bids] == [
        ("premium", 1),
        ("cheap", 2),
        ("wrong-region", None),
    ]
    wrong = result.by_label("wrong-region")
    assert not wrong.qualified
    assert [d.code for d in wrong.disqualifications] == ["region"]
    assert "us-west" in wrong.disqualifications[0].message
    assert result.sensitivity.verdict == VERDICT_ROBUST
    assert result.sensitivity.winner_share >= ROBUST_WIN_SHARE


def test_demo_effective_prices_with_documented_inputs() -> None:
    """The young cheap site fails often and repairs slowly: its 12 % goodput loss outweighs a
    9 % lower list price, so the premium bid is cheaper per useful GPU-hour."""
    result = score_bids(demo_request(), demo_bids(), Weights())
    assert effective("cheap", result) == pytest.approx(2.4319, abs=1e-4)
    assert effective("premium", result) == pytest.approx(2.3274, abs=1e-4)
    assert effective("wrong-region", result) == pytest.approx(2.0073, abs=1e-4)
    cheap, premium = result.by_label("cheap").cost, result.by_label("premium").cost
    assert cheap.node_mtbf_source == "declared" and cheap.node_mtbf_hours == 1_500
    assert cheap.goodput == pytest.approx(0.8780, abs=1e-4)
    assert premium.goodput == pytest.approx(0.9968, abs=1e-4)
    # a cheap-bid incident costs 12x the GPU-hours of a premium one, and it has 5x as many
    assert cheap.lost_gpu_hours_per_incident > 12 * premium.lost_gpu_hours_per_incident
    assert not cheap.run_fits_term and premium.run_fits_term
    # the best qualified effective price sets the cost score; disqualified bids do not
    assert result.by_label("premium").scores["effective_cost"] == 100
    assert result.by_label("cheap").scores["effective_cost"] < 100


def test_with_the_default_mtbf_the_cheap_bid_wins_on_cost_for_two_nodes_only() -> None:
    """Without its own low MTBF figure the cheap bid would be cheaper at 2 nodes, not at 16."""
    cheap = replace(demo_cheap(), declared_node_mtbf_hours=None)
    small = score_bids(demo_request(), [cheap, demo_premium()], Weights())
    assert effective("cheap", small) < effective("premium", small)
    req = replace(demo_request(), nodes=16, gpu_count=128)
    bids = [replace(b, nodes=16) for b in (cheap, demo_premium())]
    large = score_bids(req, bids, Weights())
    assert effective("cheap", large) > effective("premium", large)
    assert effective("cheap", large) == pytest.approx(2.725, abs=1e-3)
    assert large.by_label("premium").scores["effective_cost"] == 100


# --- disqualification -----------------------------------------------------------------------


def test_a_disqualified_bid_lists_every_reason_and_has_no_rank() -> None:
    bad = replace(
        demo_cheap(),
        label="bad",
        region="APAC",
        gpu_model="MI300X",
        scheduler="kubernetes",
        available_end=date(2027, 3, 1),
        deal_breaker_failures=("will not share diagnostics",),
        missing_required_answers=("spares location", "S2 restore clock"),
    )
    result = score_bids(demo_request(), [demo_premium(), bad], Weights())
    scored = result.by_label("bad")
    assert scored.rank is None and not scored.qualified
    assert [d.code for d in scored.disqualifications] == [
        "gpu_model",
        "region",
        "term_not_covered",
        "scheduler",
        "deal_breaker",
        "missing_answer",
        "missing_answer",
    ]
    assert len(scored.criteria) == 5  # still scored, for the comparison page


def test_no_qualified_bids_means_no_winner() -> None:
    result = score_bids(demo_request(), [demo_wrong_region()], Weights())
    assert result.winner is None
    assert result.qualified == ()
    assert result.sensitivity.verdict == VERDICT_NONE
    assert result.by_label("wrong-region").scores["effective_cost"] == 100


def test_duplicate_labels_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        score_bids(demo_request(), [demo_premium(), demo_premium()], Weights())


def test_totals_are_the_weighted_mean_of_criteria() -> None:
    weights = Weights(
        effective_cost=1, fabric_placement=0, incident_sla=0, acceptance_terms=0, delivery_risk=3
    )
    result = score_bids(demo_request(), demo_bids(), weights)
    for b in result.bids:
        s = b.scores
        assert b.total == pytest.approx(
            (s["effective_cost"] + 3 * s["delivery_risk"]) / 4, abs=0.01
        )


# --- sensitivity ----------------------------------------------------------------------------


def near_twins() -> list[BidOffer]:
    """Two bids a hair apart: one slightly cheaper, the other with a stated leaf-switch count."""
    a = replace(demo_premium(), label="A", price_per_gpu_hour=Decimal("2.65"))
    b = replace(demo_premium(), label="B", price_per_gpu_hour=Decimal("2.58"), leaf_switches=None)
    return [a, b]


def test_two_nearly_equal_bids_are_a_close_call() -> None:
    result = score_bids(demo_request(), near_twins(), Weights())
    sens = result.sensitivity
    assert abs(result.bids[0].total - result.bids[1].total) < 0.2
    assert sens.verdict == VERDICT_CLOSE
    assert not sens.survives_all_moves
    changed = {(m.criterion, m.factor) for m in sens.winner_changing_moves}
    assert ("effective_cost", 0.8) in changed
    assert 0.2 < sens.winner_share < ROBUST_WIN_SHARE
    assert sum(sens.win_shares.values()) == pytest.approx(1.0)


def test_sensitivity_is_deterministic_for_a_seed() -> None:
    first = score_bids(demo_request(), near_twins(), Weights(), seed=7)
    again = score_bids(demo_request(), near_twins(), Weights(), seed=7)
    assert first.sensitivity == again.sensitivity
    assert result_to_dict(first) == result_to_dict(again)
    other = score_bids(demo_request(), near_twins(), Weights(), seed=8)
    assert other.sensitivity.seed == 8
    assert other.sensitivity.win_shares != first.sensitivity.win_shares


def test_moves_skip_zero_weights() -> None:
    weights = Weights(
        effective_cost=1, fabric_placement=0, incident_sla=0, acceptance_terms=0, delivery_risk=0
    )
    sens = score_bids(demo_request(), demo_bids(), weights).sensitivity
    assert {m.criterion for m in sens.moves} == {"effective_cost"}


def test_dominated_rows_never_win_and_ties_go_to_the_better_rank() -> None:
    rows = [[90.0, 50.0], [50.0, 90.0], [40.0, 40.0], [90.0, 50.0]]
    sens = analyse(
        labels=["x", "y", "dominated", "x-twin"],
        rows=[[*r, 0.0, 0.0, 0.0] for r in rows],
        weights=(1.0, 1.0, 0.0, 0.0, 0.0),
        seed=3,
        draws=500,
    )
    assert sens.win_shares["dominated"] == 0
    assert sens.win_shares["x-twin"] == 0
    assert sens.win_shares["x"] + sens.win_shares["y"] == pytest.approx(1.0)
    assert sens.verdict == VERDICT_CLOSE


# --- serialisation --------------------------------------------------------------------------


def test_result_serialises_to_strict_json() -> None:
    result = score_bids(demo_request(), demo_bids(), Weights())
    data = result_to_dict(result)
    text = json.dumps(data, allow_nan=False)
    back = json.loads(text)
    assert back["schema"] == "clusterbid.scoring/1"
    assert back["winner"] == "premium"
    assert back["request"]["reservation_start"] == "2027-02-01"
    first = back["bids"][0]
    assert first["offer"]["price_per_gpu_hour"] == "2.32"  # Decimal -> str, always
    assert first["cost"]["explain"][0]["label"] == "Node MTBF (h)"
    assert back["sensitivity"]["win_shares"] == {"premium": 1.0, "cheap": 0.0}
    assert back["weights"]["effective_cost"] == 40.0


def test_result_without_useful_work_serialises_none() -> None:
    doomed = replace(demo_cheap(), declared_node_mtbf_hours=60.0)
    data = result_to_dict(score_bids(demo_request(), [doomed], Weights()))
    back = json.loads(json.dumps(data, allow_nan=False))
    assert back["bids"][0]["cost"]["effective_price_per_useful_gpu_hour"] is None


# --- weights and inputs ---------------------------------------------------------------------


def test_weights_defaults_and_round_trip() -> None:
    w = Weights()
    assert w.to_dict() == {
        "effective_cost": 40.0,
        "fabric_placement": 20.0,
        "incident_sla": 20.0,
        "acceptance_terms": 10.0,
        "delivery_risk": 10.0,
    }
    assert Weights.from_dict(w.to_dict()) == w
    assert Weights.from_dict({"delivery_risk": "25"}).delivery_risk == 25.0
    assert Weights.from_dict({"incident_sla": Decimal("2.5")}).incident_sla == 2.5


@pytest.mark.parametrize(
    ("data", "weight"),
    [
        ({"fabric_placement": -1}, "fabric_placement"),
        ({"incident_sla": float("nan")}, "incident_sla"),
        ({"effective_cost": 1e308}, "effective_cost"),  # two of these overflow the total
        ({"acceptance_terms": "lots"}, "acceptance_terms"),
        ({"delivery_risk": True}, "delivery_risk"),
        ({"price": 10}, "price"),
    ],
)
def test_invalid_weights_name_the_weight(data: dict[str, object], weight: str) -> None:
    with pytest.raises(WeightError) as caught:
        Weights.from_dict(data)
    assert caught.value.weight == weight
    assert weight in str(caught.value)


def test_a_weight_just_over_the_cap_is_printed_as_typed() -> None:
    with pytest.raises(WeightError, match=r"must be at most 1,000,000, got 1,000,001$"):
        Weights.from_dict({"effective_cost": 1_000_001})


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("-5", "must not be negative, got -5$"),
        (" -5.50 ", "must not be negative, got -5.50$"),
        (-5, "must not be negative, got -5$"),
        (-2.5, "must not be negative, got -2.5$"),
        ("1e400", "must be finite, got 1e400$"),
        ("2000000", "must be at most 1,000,000, got 2000000$"),
    ],
)
def test_a_refused_weight_is_quoted_as_typed(raw: object, said: str) -> None:
    """A typed "-5" comes back as "-5", not as the "-5.0" it was read as."""
    with pytest.raises(WeightError, match=said):
        Weights.from_dict({"effective_cost": raw})


def test_all_zero_weights_are_refused() -> None:
    zero = dict.fromkeys(Weights().to_dict(), 0)
    with pytest.raises(WeightError) as caught:
        Weights.from_dict(zero)
    assert caught.value.weight is None


def test_inputs_name_the_bad_field() -> None:
    with pytest.raises(ScoringInputError) as caught:
        replace(demo_request(), fabric="carrier pigeon")
    assert caught.value.field == "fabric"
    with pytest.raises(ScoringInputError) as caught:
        replace(demo_premium(), response_minutes={"S9": 5.0})
    assert caught.value.field.startswith("response_minutes")
    with pytest.raises(ScoringInputError):
        replace(demo_request(), reservation_end=date(2027, 1, 1))


def test_float_and_decimal_prices_agree() -> None:
    as_float = replace(demo_premium(), price_per_gpu_hour=2.32)
    a = compute_cost(request=demo_request(), bid=as_float)
    b = compute_cost(request=demo_request(), bid=demo_premium())
    assert a.effective_price_per_useful_gpu_hour == pytest.approx(
        b.effective_price_per_useful_gpu_hour
    )


def test_the_package_imports_nothing_from_django() -> None:
    code = (
        "import sys, engine.scoring, engine.scoring.demo; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework'}); "
        "print(','.join(bad))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
        env=env,
    )
    assert out.stdout.strip() == ""
