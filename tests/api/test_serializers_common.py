"""Read serializers work their fields out once per class; every instance prints with its own."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from rest_framework import serializers

from api.serializers.bids import BidSerializer
from api.serializers.common import ReadModelSerializer, UtcDateTimeField
from api.serializers.requests import RequestSerializer
from orgs.models import Organization
from tests.factories import OrganizationFactory

pytestmark = pytest.mark.django_db


class Viewer(ReadModelSerializer[Organization]):
    """Reads the request's user from its context, as a nested part of a bigger answer."""

    seen_by = serializers.SerializerMethodField()

    class Meta:
        model = Organization
        fields = ["id", "name", "seen_by"]

    def get_seen_by(self, obj: Organization) -> str:
        return str(self.context["viewer"])


class Page(ReadModelSerializer[Organization]):
    viewer = Viewer(source="*", read_only=True)
    initials = serializers.ListField(child=serializers.CharField(), source="slug", read_only=True)
    title = serializers.SerializerMethodField()

    class Meta:
        model = Organization
        fields = ["id", "slug", "created_at", "title", "viewer", "initials"]

    def get_title(self, obj: Organization) -> str:
        return f"{obj.name} for {self.context['viewer']}"


def test_two_readers_of_one_class_each_get_their_own_context():
    org = OrganizationFactory(name="Helix Labs")
    # Both built before either prints: nothing one binds may reach the other.
    alice = Page(org, context={"viewer": "alice"})
    nora = Page(org, context={"viewer": "nora"})
    printed: dict[str, Any] = {"nora": nora.data, "alice": alice.data}
    for who, data in printed.items():
        assert data["title"] == f"Helix Labs for {who}"
        assert data["viewer"] == {"id": org.pk, "name": "Helix Labs", "seen_by": who}
    assert printed["alice"]["created_at"].endswith("Z")
    assert printed["alice"]["initials"] == list(org.slug)


def test_fields_are_copies_and_the_class_keeps_them_unbound():
    first, second = Page(), Page()
    for name, field in first.fields.items():
        assert field is not second.fields[name]
        assert field.parent is first and second.fields[name].parent is second
    nested_first, nested_second = first.fields["viewer"], second.fields["viewer"]
    assert nested_first.fields["seen_by"] is not nested_second.fields["seen_by"]
    assert nested_first.fields["seen_by"].root is first
    assert first.fields["initials"].child is not second.fields["initials"].child
    assert first.fields["initials"].child.root is first
    for field, _ in Page._unbound_fields.values():
        assert getattr(field, "parent", None) is None  # never bound: only copies are


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2026, 3, 1, 12, 30, 5, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 1, 12, 30, 5, 120, tzinfo=dt.UTC),
        dt.datetime(2026, 3, 1, 12, 30, 5, tzinfo=ZoneInfo("UTC")),
        dt.datetime(2026, 7, 1, 9, 0, tzinfo=ZoneInfo("Europe/Paris")),
        dt.datetime(2026, 1, 2, 3, 4, 5),
        dt.datetime.max.replace(tzinfo=dt.UTC),
        "2026-03-01T12:30:05Z",
        None,
    ],
)
@pytest.mark.parametrize("output", [{}, {"format": "%d/%m/%Y %H:%M"}, {"format": None}])
def test_a_time_prints_as_drfs_field_in_utc_prints_it(value, output):
    drf = serializers.DateTimeField(default_timezone=dt.UTC, **output)
    assert UtcDateTimeField(**output).to_representation(value) == drf.to_representation(value)


@pytest.mark.parametrize("serializer", [Page, BidSerializer, RequestSerializer])
def test_each_field_is_copied_as_copy_would_copy_it(serializer):
    assert serializer().fields  # works the class's fields out
    for unbound, copier in serializer._unbound_fields.values():
        copied, expected = copier(unbound), copy.copy(unbound)
        assert type(copied) is type(unbound) and copied is not unbound
        if copier is not copy.deepcopy:  # a deep copy holds copies of the fields it holds
            assert vars(copied) == vars(expected)
