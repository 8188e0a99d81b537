"""The signatures page of a contract annex version: validation, the signed copy, the sign button."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annexes import selectors
from annexes.signatures import signing_report
from annexes.signing import SIGNING, annex_sign, party_for, signing_actor, signing_state
from core.web import flash_errors
from orgs.access import active_org, org_required, user_of
from signing.selectors import TRIAL_MARK, identity_current


@org_required()
def annex_signatures(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    annex = selectors.annex_signable_for_org(org=org, pk=pk)
    assert org is not None  # org_required
    state = signing_state(annex=annex)
    party = party_for(state=state, org=org)
    decision = SIGNING.decide(
        state, f"sign_{party}", actor=signing_actor(state=state, user=user_of(request))
    )
    context = {
        "annex": annex,
        "req": annex.request,
        "party": party,
        "decision": decision,
        "report": signing_report(state=state),
        "identity": identity_current(org=org),
        "trial_mark": TRIAL_MARK,
        "latest_version": state.latest_version,
    }
    return render(request, "annexes/signatures.html", context)


@org_required()
@require_POST
def annex_sign_view(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    annex = selectors.annex_signable_for_org(org=org, pk=pk)
    assert org is not None  # org_required
    try:
        signature = annex_sign(
            annex=annex,
            user=user_of(request),
            org=org,
            confirmed=request.POST.get("confirm") in ("on", "true", "1"),
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request,
            f"Version {annex.version} is signed for {org.name} "
            f"(document SHA-256 {signature.pdf_sha256[:16]}…).",
        )
    return redirect("annexes:signatures", pk=annex.pk)


@org_required()
def annex_signed_download(request: HttpRequest, pk: int) -> FileResponse:
    annex = selectors.annex_signable_for_org(org=active_org(request), pk=pk)
    last = signing_state(annex=annex).signatures[-1:] or None
    if last is None:
        raise Http404("This version carries no signature yet.")
    return FileResponse(
        last[0].pdf.open("rb"),
        as_attachment=True,
        filename=last[0].filename,
        content_type="application/pdf",
    )
