"""A provider's supplier profile and compliance documents: administrators change them, each
change is on the organisation's audit trail; a refused file or date names its field."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from orgs.choices import MemberRole
from suppliers.models import ComplianceDocument
from suppliers.services import document_add, document_remove, profile_save
from tests.bids.onboarding.helpers import file_iso27001, pdf
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db

PROFILE = {
    "legal_name": "Northwind Compute GmbH",
    "website": "https://northwind.example",
    "regions": "EU (Frankfurt)",
    "contact_name": "Nora North",
    "contact_email": "nora@northwind.example",
    "contact_phone": "",
}


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_an_administrator_saves_the_profile_on_the_audit_trail(provider):
    profile_save(org=provider.org, user=provider.user, data=PROFILE)
    entry = AuditEntry.objects.get(action="supplier.profile")
    assert entry.after["legal_name"] == "Northwind Compute GmbH"
    assert entry.obj_key == f"org:{provider.org.pk}"


def test_an_engineer_reads_but_does_not_change_the_profile(provider):
    engineer = MembershipFactory(organization=provider.org, role=MemberRole.ENGINEER).user
    with pytest.raises(PermissionDenied):
        profile_save(org=provider.org, user=engineer, data=PROFILE)
    client = provider.client()
    client.force_login(engineer)
    assert "Only the administrators" in client.get(reverse("suppliers:profile")).content.decode()


def test_a_document_is_stored_with_its_hash_and_kind(provider):
    document = file_iso27001(provider)
    assert document.content_type == "application/pdf" and len(document.sha256) == 64
    assert document.file.name.endswith(".pdf")
    assert AuditEntry.objects.filter(action="supplier.document.add").exists()
    document_remove(document=document, user=provider.user)
    assert not ComplianceDocument.objects.exists()
    assert AuditEntry.objects.filter(action="supplier.document.remove").exists()


def test_an_expiry_before_the_issue_names_the_field(provider):
    today = timezone.localdate()
    with pytest.raises(ValidationError) as refused:
        document_add(
            org=provider.org,
            user=provider.user,
            doc_type="soc2_type2",
            issuer="A-LIGN",
            issued_on=today,
            expires_on=today - timedelta(days=1),
            upload=pdf(),
        )
    assert "expires_on" in refused.value.message_dict


def test_a_file_that_is_not_a_document_names_the_file(provider):
    today = timezone.localdate()
    with pytest.raises(ValidationError) as refused:
        document_add(
            org=provider.org,
            user=provider.user,
            doc_type="soc2_type2",
            issuer="A-LIGN",
            issued_on=today - timedelta(days=3),
            expires_on=today + timedelta(days=300),
            upload=SimpleUploadedFile("report.pdf", b"\x00\x01binary"),
        )
    assert "report.pdf" in refused.value.message_dict["file"][0]
    assert not ComplianceDocument.objects.exists()


def test_the_page_keeps_what_was_typed_when_a_date_is_refused(provider):
    response = provider.client().post(
        reverse("suppliers:document-add"),
        {
            "doc_type": "iso27001",
            "issuer": "BSI Group",
            "issued_on": "2026-01-01",
            "expires_on": "2025-01-01",
            "file": pdf(),
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "The expiry date must be after the issue date." in html
    assert 'value="BSI Group"' in html


def test_the_organisations_export_holds_its_profile_and_documents(provider, rival_provider):
    from ops.export_collect import collect

    profile_save(org=provider.org, user=provider.user, data=PROFILE)
    file_iso27001(provider)
    export = collect(org=provider.org)
    assert export.tables["supplier_profile"].rows[0]["legal_name"] == PROFILE["legal_name"]
    assert len(export.tables["compliance_documents"].rows) == 1
    assert not collect(org=rival_provider.org).tables["compliance_documents"].rows
