"""Every model has an admin page, and each page opens for a superuser."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

OUR_APPS = {
    "core",
    "bids",
    "acceptance",
    "contracts",
    "questionnaire",
    "api",
    "incidents",
    "delivery",
    "billing",
    "evaluation",
    "annexes",
    "signing",
    "sso",
}


def _our_models():
    return [m for m in apps.get_models() if m._meta.app_label in OUR_APPS]


def test_every_model_is_registered_in_the_admin():
    missing = [m._meta.label for m in _our_models() if m not in admin.site._registry]
    assert not missing, f"Register these in an admin.py: {missing}"


@pytest.mark.django_db
@pytest.mark.parametrize("model", _our_models(), ids=lambda m: m._meta.label)
def test_each_admin_list_opens(model, admin_client):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    assert admin_client.get(url).status_code == 200
