"""Read serializers work their fields out once per class; every instance prints with its own."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers

from api.serializers.common import ReadModelSerializer
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
