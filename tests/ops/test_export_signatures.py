"""The signed contract travels with an organisation's export: each signature's row and the
signed PDF as it stood after it, byte for byte; a rival's export holds none of it."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from annexes.signing import annex_sign
from ops.models import ExportStatus
from signing.services import identity_trial
from tests.annexes.signing_helpers import approver_of, rendered_contract
from tests.ops.export_helpers import export_of, job_archive

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed(awarded: Any, buyer: Any, buyer_approver: Any, provider: Any) -> Any:
    identity_trial(org=buyer.org, user=buyer.user)
    identity_trial(org=provider.org, user=provider.user)
    annex = rendered_contract(awarded)
    first = annex_sign(annex=annex, user=buyer_approver.user, org=buyer.org, confirmed=True)
    pia = approver_of(provider.org, "pia")
    second = annex_sign(annex=annex, user=pia.user, org=provider.org, confirmed=True)
    return annex, [first, second]


@pytest.mark.parametrize("party", ["buyer", "provider"])
def test_both_parties_export_both_signatures_with_the_signed_pdfs(
    signed: Any, party: str, request: Any, django_capture_on_commit_callbacks: Any
) -> None:
    annex, signatures = signed
    job = export_of(request.getfixturevalue(party), django_capture_on_commit_callbacks)
    assert job.status == ExportStatus.DONE, job.error
    archive = job_archive(job)
    rows = archive.json("annex_signatures.json")
    assert [(row["annex_id"], row["party"]) for row in rows] == [
        (annex.pk, "buyer"),
        (annex.pk, "provider"),
    ]
    for row, signature in zip(rows, signatures, strict=True):
        pdf = archive.zip.read(row["pdf"])
        assert hashlib.sha256(pdf).hexdigest() == row["pdf_sha256"] == signature.pdf_sha256
    assert rows[0]["signed_over_sha256"] == annex.pdf_sha256
    assert "key" not in " ".join(rows[0])  # no key material, only the certificate's hash
    assert "### `annex_signatures.json`" in archive.zip.read("README.md").decode()


def test_the_rival_exports_no_signature_of_a_contract_it_lost(
    signed: Any, rival_provider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    archive = job_archive(export_of(rival_provider, django_capture_on_commit_callbacks))
    assert archive.json("annex_signatures.json") == []
    assert not [name for name in archive.names if "annex_signatures" in name and "files/" in name]
