from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse

from contracts.forms import HandoffTermsForm
from contracts.models import HandoffTerms

pytestmark = pytest.mark.django_db


def _post_data(terms: HandoffTerms, **changes: object) -> dict[str, object]:
    data = model_to_dict(terms, fields=HandoffTermsForm.Meta.fields)
    data.pop("sla_credit_tiers")  # text lines on the form (see _with_availability)
    data.update(changes)
    return {k: v for k, v in data.items() if v is not False and v is not None}


def test_a_buyer_sets_terms_from_a_template(world, buyer):
    client = buyer.client()
    url = reverse("contracts:terms-create", args=[world.request.pk])
    assert "Business-hours support" in client.get(url).content.decode()
    assert client.post(url, {"template": "training-24x7"}).status_code == 302
    assert HandoffTerms.objects.get(request=world.request).version == 1


def test_the_form_keeps_input_and_names_the_field_on_error(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    data = _post_data(fx.terms, buyer_owner_name="Dana Ops", s1_restore_minutes=5)
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    assert "cannot be shorter" in response.context["form"].errors["s1_restore_minutes"][0]
    assert 'value="Dana Ops"' in response.content.decode()


def test_a_valid_edit_makes_version_2_and_shows_units(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    response = buyer.client().post(url, _post_data(fx.terms, s2_restore_minutes=600))
    assert response.status_code == 302
    page = buyer.client().get(reverse("contracts:terms-detail", args=[fx.request.pk]))
    html = page.content.decode()
    assert "version 2" in html and "10 h" in html and "(600 min)" in html


def test_each_severity_choice_on_the_form_says_what_it_decides(fx, buyer):
    html = buyer.client().get(reverse("contracts:terms-edit", args=[fx.request.pk])).content
    page = html.decode()
    assert page.count("Severities that count as downtime") == 1
    assert "Severities that take the whole allocation down" in page
    assert "whichever nodes the incident names" in page


def _with_availability(terms: HandoffTerms, **changes: object) -> dict[str, object]:
    data = _post_data(terms)
    data.update(
        availability_shown="1",
        sla_credit_tiers="99.9 10\n99.0 25\n95.0 100",
        downtime_severities=["S1", "S3"],
    )
    data.update(changes)
    return data


def test_the_form_edits_the_credit_tiers_as_lines_and_the_severities_as_boxes(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    html = buyer.client().get(url).content.decode()
    assert "Availability and credits" in html and "99.9 10\n99.0 25\n95.0 100" in html
    data = _with_availability(
        fx.terms, sla_credit_tiers="99.5 5\n98 50", downtime_severities=["S1", "S2", "S3"],
        clock_breach_credit_pct="2.5", sla_credit_cap_pct="60",
    )  # fmt: skip
    assert buyer.client().post(url, data).status_code == 302
    fx.terms.refresh_from_db()
    assert fx.terms.sla_credit_tiers == [
        {"below_pct": "99.5", "credit_pct": "5"},
        {"below_pct": "98", "credit_pct": "50"},
    ]
    assert fx.terms.downtime_severities == ["S1", "S2", "S3"]
    assert str(fx.terms.clock_breach_credit_pct) == "2.5"


def test_saving_the_availability_fieldset_unchanged_keeps_the_version(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    version = fx.terms.version
    assert buyer.client().post(url, _with_availability(fx.terms)).status_code == 302
    fx.terms.refresh_from_db()
    assert fx.terms.version == version


@pytest.mark.parametrize(
    ("tiers", "words"),
    [
        ("99.9 10\n99 lots", "Line 2: “lots” is not a number"),
        ("99.9 10\n\n99.9 20", "Line 3: 99.9 % is already the tier of line 1"),
        ("99.9", "Line 1: give two numbers"),
        ("99.9 120", "Line 1: the credit must be between 0 and 100"),
    ],
)
def test_a_bad_tier_line_is_named_and_the_text_kept(fx, buyer, tiers, words):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    response = buyer.client().post(url, _with_availability(fx.terms, sla_credit_tiers=tiers))
    assert response.status_code == 200
    assert words in response.context["form"].errors["sla_credit_tiers"][0]
    assert tiers.split("\n")[0] in response.content.decode()


def test_the_terms_page_shows_the_availability_terms_the_provider_acknowledges(fx, buyer, provider):
    """GIVEN terms with a cap, a breach credit and outages not billed WHEN the invited provider
    reads the terms page THEN every availability term it acknowledges is on it, not only in
    the annex."""
    HandoffTerms.objects.filter(pk=fx.terms.pk).update(
        sla_credit_cap_pct="50.0",
        clock_breach_credit_pct="2.5",
        outage_not_billed=True,
        downtime_severities=["S1", "S3"],
        whole_allocation_severities=["S1"],
    )
    page = provider.client().get(reverse("contracts:terms-detail", args=[fx.request.pk]))
    html = page.content.decode()
    sla = html[html.index('id="terms-sla"') :]
    assert "below 99.9 %: 10 % of the month's fees" in sla
    assert "below 95.0 %: 100 % of the month's fees" in sla
    assert "50.0 % of the month's fees" in sla
    assert "S1, S3 count as downtime" in sla
    assert "downtime of S1 counts every node" in sla
    assert "2.5 % of the month's fees per breached clock" in sla
    assert "not billed while out" in sla
