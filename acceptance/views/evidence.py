"""The evidence pages of a run, whoever owns it: a reservation's burn-in run, a pilot's or a
release canary's.

Each rule is written here once: how an upload is stored and what a refused or repeated file
says, the status the page polls, re-running the checks, reading a stored file (whole or around a
line), retrying a failed parse, withdrawing a file. Who may change a run is the services' rule
(`_require_run_open`), the same for both owners. `RunOwner` holds only what differs: how the
acting organisation finds the run and its files (404 unless it is a party), which URLs the
pages link to, and the page that shows the run. The URL tables pass the owner to these views.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from acceptance.forms.burnin import EvidenceUploadForm
from acceptance.models import BurnInRun, Evidence
from acceptance.selectors import burnin as sel
from acceptance.services import burnin as services
from core.web import errors_into_form, flash_errors
from engine.evidence.parsers import ParseError, unpacked
from orgs.access import active_org, org_required, user_of

#: Lines shown either side of the one a check points at (the whole file stays downloadable).
LINES_AROUND = 150


class RunPage(Protocol):
    def __call__(self, request: HttpRequest, run: BurnInRun, **forms: Any) -> HttpResponse: ...


@dataclass(frozen=True)
class RunOwner:
    """What differs between a reservation's run and a pilot's.

    `urls`: URL names for `page`, `upload`, `recheck`, `status` (each taking `page_pk(run)`)
    and `download`, `retry`, `withdraw` (each taking the file's pk). `run_get` and
    `evidence_get` read for the acting organisation's ids and raise 404 to anyone else."""

    urls: dict[str, str]
    run_get: Callable[[list[int], int], BurnInRun]
    evidence_get: Callable[[list[int], int], Evidence]
    page_pk: Callable[[BurnInRun], int]
    page: RunPage

    @classmethod
    def url_names(cls, namespace: str, *, page: str, run_prefix: str) -> dict[str, str]:
        """The owner's URL names: its run's page and moves, and its files' moves."""
        names = {"page": f"{namespace}:{page}"}
        names.update({m: f"{namespace}:{run_prefix}{m}" for m in ("upload", "recheck", "status")})
        names.update({m: f"{namespace}:evidence-{m}" for m in ("download", "retry", "withdraw")})
        return names

    @property
    def evidence_urls(self) -> dict[str, str]:
        """The views a run's evidence table links to (`_evidence_table.html`, `_checks.html`)."""
        return {move: self.urls[move] for move in ("download", "retry", "withdraw")}

    def run_urls(self, run: BurnInRun) -> dict[str, str]:
        """The run's own moves its owner has, resolved for its page: upload, recheck, status
        (a canary has no recheck of its own)."""
        pk = self.page_pk(run)
        moves = [move for move in ("upload", "recheck", "status") if move in self.urls]
        return {move: reverse(self.urls[move], args=[pk]) for move in moves}

    def back_to(self, run: BurnInRun) -> HttpResponse:
        return redirect(self.urls["page"], pk=self.page_pk(run))


def org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


def page_context(owner: RunOwner, run: BurnInRun, **forms: Any) -> dict[str, Any]:
    """What both run pages show of the evidence: the upload form (as typed, after an error),
    the URLs, the size limit."""
    return {
        "upload_form": forms.get("upload_form") or EvidenceUploadForm(),
        "max_bytes": settings.EVIDENCE_MAX_BYTES,
        "evidence_urls": owner.evidence_urls,
        "run_urls": owner.run_urls(run),
    }


@org_required()
@require_GET
def run_status(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponse:
    """What the run's page polls while a file is queued or parsing."""
    return JsonResponse(sel.run_status(run=owner.run_get(org_ids(request), pk)))


@org_required()
@require_POST
def run_upload(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponse:
    """Store each file (bytes and SHA-256 first, parsing queued); a refused file says why by
    its name, a file already in the run is named with the copy it matches, and a bad node
    label, or a batch of which every file was refused, keeps the form as typed."""
    run = owner.run_get(org_ids(request), pk)
    form = EvidenceUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return owner.page(request, run, upload_form=form)
    files = form.cleaned_data["file"]
    try:
        services.evidence_upload_check(run=run, user=user_of(request))
    except ValidationError as exc:  # the run is not this party's to add to: nothing to retype
        for upload in files:
            for message in exc.messages:
                messages.error(request, f"{upload.name}: {message}")
        return owner.back_to(run)
    stored, kept = 0, 0
    refused: list[str] = []
    for upload in files:
        try:
            result = services.evidence_upload(
                run=run,
                user=user_of(request),
                upload=upload,
                node=form.cleaned_data["node"],
                kind=form.cleaned_data["kind"] or None,
            )
        except ValidationError as exc:
            if hasattr(exc, "error_dict") and "node" in exc.error_dict:
                errors_into_form(form, exc)
                return owner.page(request, run, upload_form=form)
            refused.extend(f"{upload.name}: {message}" for message in exc.messages)
            continue
        if result.duplicate:
            kept += 1
            messages.warning(
                request,
                f"{upload.name} is already uploaded as {result.evidence.original_name} "
                f"(SHA-256 {result.evidence.sha256[:12]}…); it was not stored twice.",
            )
        else:
            stored += 1
    if refused and not (stored or kept):
        for message in refused:
            form.add_error("file", message)
        return owner.page(request, run, upload_form=form)
    for message in refused:
        messages.error(request, message)
    if stored:
        messages.success(
            request, f"Stored {stored} file{'s' if stored != 1 else ''}; parsing has started."
        )
    return owner.back_to(run)


@org_required()
@require_POST
def run_recheck(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponse:
    run = owner.run_get(org_ids(request), pk)
    _attempt(
        request,
        lambda: services.run_request_recheck(run=run, user=user_of(request)),
        success="The checks are running again.",
    )
    return owner.back_to(run)


@login_required
@require_GET
def evidence_download(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponseBase:
    """The stored file as uploaded; with ?line=N, the lines around N as a page to read."""
    # Same rule as org_required (signed in, an active organisation), typed for a streamed file.
    if active_org(request) is None:
        raise Http404
    evidence = owner.evidence_get(org_ids(request), pk)
    line = request.GET.get("line", "")
    if line.isdigit() and int(line) > 0:
        return _lines_around(request, evidence, int(line), owner=owner)
    return FileResponse(
        evidence.file.open("rb"),
        as_attachment=True,
        filename=evidence.original_name,
        content_type="text/plain; charset=utf-8",
    )


def _lines_around(
    request: HttpRequest, evidence: Evidence, target: int, *, owner: RunOwner
) -> HttpResponse:
    with evidence.file.open("rb") as handle:
        data = handle.read()
    # A gzipped upload's lines, as its checks read them; one that cannot be unpacked is shown
    # as stored (its checks say why).
    with contextlib.suppress(ParseError):
        data = unpacked(data)
    text = data.decode("utf-8", errors="replace")
    first = max(1, target - LINES_AROUND)
    window = text.split("\n")[first - 1 : target + LINES_AROUND]
    return render(
        request,
        "acceptance/burnin/evidence_lines.html",
        {
            "evidence": evidence,
            "target": target,
            "lines": [(first + i, t.rstrip("\r")) for i, t in enumerate(window)],
            "back_url": reverse(owner.urls["page"], args=[owner.page_pk(evidence.run)]),
            "download_url": reverse(owner.urls["download"], args=[evidence.pk]),
        },
    )


@org_required()
@require_POST
def evidence_retry(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponse:
    evidence = owner.evidence_get(org_ids(request), pk)
    _attempt(
        request,
        lambda: services.evidence_retry(evidence=evidence, user=user_of(request)),
        success=f"{evidence.original_name} is queued for parsing again.",
    )
    return owner.back_to(evidence.run)


@org_required()
@require_POST
def evidence_withdraw(request: HttpRequest, pk: int, *, owner: RunOwner) -> HttpResponse:
    evidence = owner.evidence_get(org_ids(request), pk)
    _attempt(
        request,
        lambda: services.evidence_withdraw(evidence=evidence, user=user_of(request)),
        success=f"{evidence.original_name} is withdrawn: still stored, no longer checked.",
    )
    return owner.back_to(evidence.run)


def _attempt(request: HttpRequest, move: Callable[[], object], *, success: str) -> None:
    """Make the move; say what it did, or why it was refused (the run is closed, the file is
    not in error), on the page the user returns to."""
    try:
        move()
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, success)
