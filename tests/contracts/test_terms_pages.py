from __future__ import annotations

import pytest
from django.forms.models import model_to_dict
from django.urls import reverse

from contracts.forms import HandoffTermsForm
from contracts.models import HandoffTerms

pytestmark = pytest.mark.django_db


def _post_data(terms: HandoffTerms, **changes: object) -> dict[str, object]:
    data = model_to_dict(terms, fields=HandoffTermsForm.Meta.fields)
    data.update(changes)
    return {k: v for k, v in data.items() if v is not False}


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
