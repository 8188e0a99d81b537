"""Team evaluation's pure part: a ranking under another weight set from the run's criterion
scores, the consensus of several evaluators, and the sentence on where they disagree."""

from __future__ import annotations

from evaluation.team.recombine import (
    ScoredBid,
    consensus_judgements,
    consensus_weights,
    disagreement,
    judgement_points,
    recombine,
)

AURORA = ScoredBid(
    "1",
    "Aurora",
    True,
    {
        "effective_cost": 100,
        "fabric_placement": 40,
        "incident_sla": 50,
        "acceptance_terms": 50,
        "delivery_risk": 50,
    },
    2.0,
)
BOREALIS = ScoredBid(
    "2",
    "Borealis",
    True,
    {
        "effective_cost": 60,
        "fabric_placement": 100,
        "incident_sla": 50,
        "acceptance_terms": 50,
        "delivery_risk": 50,
    },
    2.6,
)
CIRRUS = ScoredBid("3", "Cirrus", False, dict.fromkeys(AURORA.scores, 100.0), 1.0)
BIDS = [AURORA, BOREALIS, CIRRUS]


def names(placed):
    return [p.name for p in placed]


def test_the_weights_decide_the_order_and_disqualified_bids_are_never_ranked():
    cost_first = recombine(BIDS, {"effective_cost": 3, "fabric_placement": 1})
    assert names(cost_first) == ["Aurora", "Borealis"]
    assert [p.rank for p in cost_first] == [1, 2]
    assert cost_first[0].total == round((3 * 100 + 40) / 4, 2)
    fabric_first = recombine(BIDS, {"effective_cost": 1, "fabric_placement": 3})
    assert names(fabric_first) == ["Borealis", "Aurora"]


def test_only_ratios_matter():
    small = recombine(BIDS, {"effective_cost": 4, "fabric_placement": 2})
    large = recombine(BIDS, {"effective_cost": 400, "fabric_placement": 200})
    assert small == large


def test_a_weighed_rating_counts_and_an_unrated_bid_counts_as_neutral():
    judged = {"2": {"judged_delivery_risk": 5.0}}
    placed = recombine(BIDS, {"effective_cost": 1, "judged_delivery_risk": 3}, judged)
    assert names(placed) == ["Borealis", "Aurora"]
    aurora = placed[1]
    assert aurora.unjudged == ("judged_delivery_risk",)
    assert aurora.total == round((100 + 3 * judgement_points(3)) / 4, 2)
    # Unweighed, a rating changes nothing.
    assert names(recombine(BIDS, {"effective_cost": 1}, judged)) == ["Aurora", "Borealis"]


def test_a_tie_goes_to_the_lower_effective_price():
    placed = recombine(BIDS, {"incident_sla": 1})
    assert names(placed) == ["Aurora", "Borealis"] and placed[0].total == placed[1].total


def test_no_weight_above_zero_ranks_nothing():
    assert recombine(BIDS, {}) == []


def test_the_consensus_is_the_mean_of_weight_shares():
    weights = consensus_weights(
        [{"effective_cost": 400}, {"effective_cost": 1, "fabric_placement": 3}]
    )
    assert weights["effective_cost"] == 62.5 and weights["fabric_placement"] == 37.5
    assert consensus_weights([]) == {}


def test_consensus_ratings_are_the_mean_of_those_who_rated():
    out = consensus_judgements(
        [{"1": {"judged_delivery_risk": 5.0}}, {"1": {"judged_delivery_risk": 2.0}}, {}]
    )
    assert out == {"1": {"judged_delivery_risk": 3.5}}


def test_the_disagreement_names_each_evaluators_winner_and_the_consensus():
    sentence = disagreement([("Ana", "Aurora"), ("Ben", "Borealis")], "Aurora")
    assert sentence == "Ana ranks Aurora first, Ben ranks Borealis first; consensus: Aurora."


def test_evaluators_who_agree_say_nothing():
    assert disagreement([("Ana", "Aurora"), ("Ben", "Aurora")], "Aurora") is None
    assert disagreement([("Ana", "Aurora")], "Aurora") is None
    assert disagreement([], None) is None
