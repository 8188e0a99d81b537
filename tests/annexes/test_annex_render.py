"""Annex PDFs read back: what a signer would check on paper."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from annexes import services as service
from annexes.document.render import snapshot_sha256
from annexes.models import Annex, AnnexJob, AnnexJobStatus, AnnexKind, FrozenAnnexError
from annexes.services import annex_render_job, annex_request
from engine.scoring import CRITERIA


def _text(annex: Annex) -> str:
    with annex.pdf.open("rb") as fh:
        reader = PdfReader(io.BytesIO(fh.read()))
    return "\n".join(page.extract_text() for page in reader.pages)


def _generate(request, user, kind=AnnexKind.CONTRACT, *, capture) -> AnnexJob:
    with capture(execute=True):
        job = annex_request(capacity_request=request, kind=kind, user=user)
    job.refresh_from_db()
    return job


def test_the_contract_annex_states_the_agreed_numbers_and_its_checksum(
    awarded, buyer, django_capture_on_commit_callbacks
):
    job = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    assert job.status == AnnexJobStatus.DONE, job.error
    annex = job.annex
    assert annex.version == 1 and annex.pages >= 3
    with annex.pdf.open("rb") as fh:
        data = fh.read()
    assert data.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == annex.pages
    text = _text(annex)
    # The footer's checksum is the stored snapshot's, recomputable from the stored JSON.
    assert annex.snapshot_sha256 == snapshot_sha256(annex.snapshot)
    assert annex.snapshot_sha256 in text.replace("\n", "")
    assert f"page 1 of {annex.pages}" in text
    assert "2.400" in text  # the awarded price per GPU-hour
    assert "NV18" in text  # the fixture's NVLink threshold
    assert "DCGM level 3 only" in text  # the provider's exception
    assert awarded.request.title in text


def test_the_comparison_summary_never_reaches_the_providers_annex(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    from evaluation.services import request_score

    request_score(capacity_request=awarded.request)
    summary = _generate(
        awarded.request,
        buyer.user,
        AnnexKind.COMPARISON,
        capture=django_capture_on_commit_callbacks,
    ).annex
    contract = _generate(
        awarded.request, buyer.user, capture=django_capture_on_commit_callbacks
    ).annex
    summary_text = _text(summary)
    assert "Bid comparison summary" in summary_text and "Rival Cloud" in summary_text
    assert "Scored " in summary_text  # when, printed for people, not as raw ISO 8601
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", summary_text)
    # Criteria carry the comparison page's names, in the rationale as in the weights line.
    flat = " ".join(summary_text.split())
    assert "Incident response and SLA" in flat and "Incident SLA" not in flat
    contract_text = _text(contract)
    assert "comparison" not in contract_text.lower()
    assert "Rival Cloud" not in contract_text
    client = provider.client()
    assert client.get(f"/annexes/{summary.pk}/annex.pdf").status_code == 404
    assert client.get(f"/annexes/{contract.pk}/annex.pdf").status_code == 200


def test_a_task_delivered_twice_issues_one_version(awarded, buyer):
    job = AnnexJob.objects.create(request=awarded.request, kind=AnnexKind.CONTRACT)
    annex_render_job(job_id=job.pk)
    annex_render_job(job_id=job.pk)
    assert Annex.objects.filter(request=awarded.request).count() == 1


def test_unchanged_sources_issue_no_new_version_and_a_change_does(
    awarded, buyer, django_capture_on_commit_callbacks
):
    first = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    again = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    assert again.reused and again.annex_id == first.annex_id
    page = f"/requests/{awarded.request.pk}/annexes/"
    assert 'id="annex-contract-stale"' not in buyer.client().get(page).content.decode()

    from acceptance.models import Acknowledgement

    # A new acknowledgement is a new source: its exceptions differ.
    ack = Acknowledgement.objects.filter(bid=awarded.bid).first()
    Acknowledgement.objects.create(
        bid=awarded.bid,
        fixture_version=ack.fixture_version,
        terms_revision=ack.terms_revision,
        status="accepted",
        exceptions=[],
        by=buyer.user,
    )
    # The list says so before anyone generates.
    assert "sources have changed since version 1" in buyer.client().get(page).content.decode()
    second = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    assert second.annex.version == 2
    diff = buyer.client().get(
        f"/requests/{awarded.request.pk}/annexes/diff/",
        {"from": first.annex_id, "to": second.annex_id},
    )
    html = diff.content.decode()
    rows = html.split("Acknowledgement and exceptions", 1)[1].split("</tbody>", 1)[0]
    status = next(r for r in rows.split("<tr>") if ">Status</td>" in r)
    assert "accepted_with_exceptions" in status
    assert "<code>acknowledgement.status</code>" not in html  # the raw key is a tooltip only


def test_issued_versions_are_immutable(awarded, buyer, django_capture_on_commit_callbacks):
    annex = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks).annex
    annex.pages = 1
    with pytest.raises(FrozenAnnexError):
        annex.save()
    with pytest.raises(FrozenAnnexError):
        Annex.objects.filter(pk=annex.pk).update(pages=1)
    with pytest.raises(FrozenAnnexError):
        annex.delete()


def test_a_render_that_dies_leaves_nothing_and_a_retry_completes(
    awarded, buyer, monkeypatch, django_capture_on_commit_callbacks
):
    real = service.render_pdf

    def crash(html: str) -> bytes:
        raise MemoryError("worker killed mid-render")

    monkeypatch.setattr(service, "render_pdf", crash)
    job = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    assert job.status == AnnexJobStatus.FAILED and "mid-render" in job.error
    assert not Annex.objects.exists()
    page = buyer.client().get(f"/requests/{awarded.request.pk}/annexes/").content.decode()
    assert "The last render failed" in page and "Retry" in page

    monkeypatch.setattr(service, "render_pdf", real)
    with django_capture_on_commit_callbacks(execute=True):
        buyer.client().post(f"/annex-jobs/{job.pk}/retry/")
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.DONE and job.annex.version == 1


def test_nothing_to_render_before_the_award(world, buyer):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="no awarded bid"):
        annex_request(capacity_request=world.request, kind=AnnexKind.CONTRACT, user=buyer.user)
    # The page says so before anyone presses the button, which it does not offer.
    page = buyer.client().get(f"/requests/{world.request.pk}/annexes/").content.decode()
    blocker = page.index('id="annex-contract-blocker"')
    assert "Award a bid first" in page[blocker:]
    contract = page[page.index('id="annex-contract"') : blocker]
    assert re.search(r'<button type="submit" class="primary"\s+disabled', contract)


def test_the_annex_prints_labels_and_instants_as_people_read_them(
    awarded, buyer, django_capture_on_commit_callbacks
):
    """GIVEN a rendered annex THEN field names keep their acronyms, instants are not raw ISO
    8601, and the running header sits in the page margin only (once per page)."""
    job = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    text = _text(job.annex)
    assert "GPU model" in text and "Gpu model" not in text
    assert "Price per GPU-hour" in text and "Nccl" not in text
    # Bandwidth floors are bytes, as nccl-tests prints busbw; link rates are bits, as ibstat.
    assert "Busbw (GB/s)" in text and "Per GPU network (GB/s)" in text
    assert "IB rate (Gb/s)" in text and "busbw (Gb/s)" not in text.replace("Busbw", "busbw")
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", text)
    with job.annex.pdf.open("rb") as fh:
        first_page = PdfReader(io.BytesIO(fh.read())).pages[0].extract_text()
    assert first_page.count(awarded.request.title + " · bid revision") == 1


def test_generate_says_rendering_or_issued(
    awarded, buyer, monkeypatch, django_capture_on_commit_callbacks
):
    """GIVEN a worker that has not run yet THEN the page says it is rendering; GIVEN an
    in-process render that already finished THEN it names the issued version instead."""
    from django.urls import reverse

    url = reverse("annexes:generate", args=[awarded.request.pk])
    done = _generate(awarded.request, buyer.user, capture=django_capture_on_commit_callbacks)
    with monkeypatch.context() as patch:
        patch.setattr("annexes.views.annex_request", lambda **kwargs: done)
        issued = buyer.client().post(url, {"kind": "contract"}, follow=True).content.decode()
    assert f"Version {done.annex.version} is issued" in issued
    queued = buyer.client().post(url, {"kind": "contract"}, follow=True).content.decode()
    assert "Rendering the PDF" in queued and "is issued" not in queued


def test_the_browser_preview_shows_the_checksum_the_pdf_prints_in_its_margin(
    awarded, provider, django_capture_on_commit_callbacks
):
    job = _generate(awarded.request, provider.user, capture=django_capture_on_commit_callbacks)
    annex = job.annex
    html = provider.client().get(f"/annexes/{annex.pk}/preview/").content.decode()
    bar = html[html.index('id="preview-bar"') :]
    bar = bar[: bar.index("</div>")]
    assert annex.snapshot_sha256 in bar
    assert f'href="/annexes/{annex.pk}/annex.pdf"' in bar
    assert f'href="/requests/{awarded.request.pk}/annexes/"' in bar
    # The PDF itself carries no preview bar.
    assert "Preview of" not in _text(annex)


def test_no_summary_is_issued_from_scores_that_are_not_current(world, buyer):
    """A weight change queues re-scoring; until it has run, a summary would freeze old scores."""
    from django.core.exceptions import ValidationError

    from evaluation.services import request_score, request_set_weights

    request_score(capacity_request=world.request)
    # The re-scoring is queued for after the commit, which this test never reaches.
    request_set_weights(
        capacity_request=world.request, user=buyer.user, weights=dict.fromkeys(CRITERIA, 10)
    )
    with pytest.raises(ValidationError, match="still running"):
        annex_request(capacity_request=world.request, kind=AnnexKind.COMPARISON, user=buyer.user)
    page = buyer.client().get(f"/requests/{world.request.pk}/annexes/").content.decode()
    assert 'id="annex-comparison-blocker"' in page and "still running" in page
