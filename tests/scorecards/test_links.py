"""The scorecard link beside a provider's name on the comparison."""

from __future__ import annotations

from scorecards.links import provider_link


def test_the_scorecard_link_escapes_the_providers_name():
    link = provider_link({"provider_id": 42, "provider_name": "O'Neil & <b>Co</b>"})
    assert link == (
        '<a href="/providers/42/scorecard/" '
        'title="How O&#x27;Neil &amp; &lt;b&gt;Co&lt;/b&gt;\'s reservations went">scorecard</a>'
    )
