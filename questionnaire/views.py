"""Thin views: fetch through tenancy-aware selectors, call one service, render or redirect."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors as bid_selectors
from bids.lifecycle import REQUEST, request_actor
from bids.services import bid_submit
from core.web import errors_into_form, flash_errors, keep_input
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind
from questionnaire import selectors, services
from questionnaire.answer_types import QuestionSpec
from questionnaire.defaults import CLOCKS, SEVERITIES, SEVERITY_LABELS
from questionnaire.forms import (
    RULES,
    AddQuestionForm,
    ImportForm,
    field_views,
    matrix_layout,
    raw_from_post,
)
from questionnaire.services.conflicts import CONFLICTS


def _errors_of(exc: ValidationError) -> tuple[dict[str, list[str]], list[str]]:
    if hasattr(exc, "error_dict"):
        return exc.message_dict, []
    return {}, exc.messages


def _refuses_terms(exc: ValidationError) -> bool:
    """Whether a refused submit names one of the bid's own terms or lot offers: those are
    changed on the bid form, not here."""
    prefix = f"{services.answers.ANSWERS}."
    return any(
        not key.startswith(prefix) and key not in (CONFLICTS, NON_FIELD_ERRORS)
        for key in _errors_of(exc)[0]
    )


def _answer_cells(exc: ValidationError) -> dict[str, list[str]]:
    """A refused submit's answer errors by question key: it names them `answers.<key>`."""
    prefix = f"{services.answers.ANSWERS}."
    return {
        key.removeprefix(prefix): messages
        for key, messages in _errors_of(exc)[0].items()
        if key.startswith(prefix)
    }


@org_required(OrgKind.PROVIDER)
def answers_edit(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    locked = bid.draft_locked_reason()
    if locked is not None:
        # No form that cannot save: the answers the bid was submitted with are on its page.
        messages.info(request, f"{locked} The answers submitted with the bid are shown here.")
        return redirect("bids:bid-detail", pk=bid.pk)
    state = selectors.draft_state(bid=bid)
    raw: dict[str, Any] | None = None
    field_errors: dict[str, list[str]] = {}  # the save refused: nothing was kept
    page_errors: list[str] = []  # saved, but the submit refused
    terms_refused = False  # ... and some of it is changed on the bid form
    cell_errors: dict[str, list[str]] = {}
    if request.method == "POST" and state.question_set is not None:
        raw = raw_from_post(state.specs, request.POST)
        submitting = "submit" in request.POST
        revision = None
        try:
            services.answers_save(bid=bid, user=user_of(request), raw=raw)
        except ValidationError as exc:
            cell_errors, page_errors = _errors_of(exc)
            field_errors = cell_errors
        else:
            try:
                revision = bid_submit(bid=bid, user=user_of(request)) if submitting else None
            except ValidationError as exc:
                # Saved fine; the submit refused: show what is stored, each problem on its cell.
                cell_errors, page_errors = _answer_cells(exc), exc.messages
                terms_refused = _refuses_terms(exc)
                raw, state = None, selectors.draft_state(bid=bid)
            else:
                if revision is not None:
                    messages.success(request, f"Revision {revision.number} submitted and frozen.")
                    return redirect("bids:bid-detail", pk=bid.pk)
                messages.success(
                    request, "Answers saved to your draft. Submit the bid to send them."
                )
                return redirect("questionnaire:answers-edit", pk=bid.pk)
    views = field_views(
        state.specs,
        answers=state.answers,
        raw=raw,
        errors=cell_errors,
        targets=state.targets,
        bound=state.bound,
    )
    steps, sections = matrix_layout(views)
    return render(
        request,
        "questionnaire/answers_form.html",
        {
            "bid": bid,
            "state": state,
            "steps": steps,
            "sections": sections,
            "field_errors": field_errors,
            "page_errors": page_errors,
            "terms_refused": terms_refused,
            "severities": [(s, SEVERITY_LABELS[s]) for s in SEVERITIES],
            "clocks": CLOCKS,
            "import_form": ImportForm(),
            "copy_sources": selectors.copy_sources(bid=bid),
        },
    )


@org_required(OrgKind.PROVIDER)
def answers_export(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    response = JsonResponse(services.answers_export(bid=bid), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="answers-bid-{bid.pk}.json"'
    return response


@org_required(OrgKind.PROVIDER)
@require_POST
def answers_import(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a JSON file to import.")
        return redirect("questionnaire:answers-edit", pk=pk)
    try:
        text = upload.read(services.answers.MAX_IMPORT_BYTES + 1).decode("utf-8")
    except UnicodeDecodeError:
        messages.error(request, f"{upload.name}: not UTF-8 text; nothing was imported.")
        return redirect("questionnaire:answers-edit", pk=pk)
    try:
        _, skipped = services.answers_import_json(bid=bid, user=user_of(request), text=text)
    except ValidationError as exc:
        messages.error(request, f"{upload.name} was not imported; your answers are unchanged.")
        flash_errors(request, exc)
    else:
        messages.success(request, f"Answers imported from {upload.name}.")
        if skipped:
            messages.warning(request, f"Skipped, not asked here: {', '.join(skipped)}.")
    return redirect("questionnaire:answers-edit", pk=pk)


@org_required(OrgKind.PROVIDER)
@require_POST
def answers_copy(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    bid = bid_selectors.bid_get_for_provider(org=org, pk=pk)
    try:
        source = bid_selectors.bid_get_for_provider(org=org, pk=int(request.POST.get("source", 0)))
    except (ValueError, Http404):
        messages.error(request, "Choose one of your own bids to start from.")
        return redirect("questionnaire:answers-edit", pk=pk)
    try:
        count = services.answers_copy_from_bid(bid=bid, source=source, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{count} answers copied from your bid on {source.request}.")
    return redirect("questionnaire:answers-edit", pk=pk)


@org_required(OrgKind.PROVIDER)
@require_POST
def conflicts_keep(request: HttpRequest, pk: int) -> HttpResponse:
    """Keep the draft's conflicting values as stated, with a reason, so the submit may go on."""
    bid = bid_selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    reason = request.POST.get("reason", "")
    try:
        services.conflicts_keep(bid=bid, user=user_of(request), reason=reason)
    except ValidationError as exc:
        flash_errors(request, exc)
        keep_input(request, key=f"conflicts:{bid.pk}", data={"reason": reason})
    else:
        messages.success(request, "Both values kept as stated; the buyer reads your reason.")
    return redirect("bids:bid-detail", pk=bid.pk)


@org_required()
def revision_diff(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_org(org=active_org(request), pk=pk)
    revisions = list(bid_selectors.revision_list(bid=bid))
    numbers = [r.number for r in revisions]

    def pick(name: str, default: int) -> int:
        try:
            value = int(request.GET.get(name, default))
        except ValueError:
            raise Http404 from None
        if value not in numbers:
            raise Http404
        return value

    if len(revisions) < 2:
        older = newer = None
        changes = []
    else:
        newer_n = pick("to", numbers[0])
        older_n = pick("from", next((n for n in numbers if n < newer_n), numbers[-1]))
        older = next(r for r in revisions if r.number == older_n)
        newer = next(r for r in revisions if r.number == newer_n)
        changes = selectors.revision_diff(older=older, newer=newer)
    return render(
        request,
        "questionnaire/revision_diff.html",
        {"bid": bid, "revisions": revisions, "older": older, "newer": newer, "changes": changes},
    )


@org_required(OrgKind.BUYER)
def answers_matrix(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    return render(
        request,
        "questionnaire/matrix.html",
        {"req": req, "matrix": selectors.answers_matrix(capacity_request=req)},
    )


@org_required(OrgKind.BUYER)
@require_POST
def set_attach(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    try:
        services.question_set_attach_default(capacity_request=req, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("bids:request-detail", pk=pk)
    messages.success(request, "The default incident questionnaire is attached; edit it below.")
    return redirect("questionnaire:set-edit", pk=pk)


@org_required(OrgKind.BUYER)
def set_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    qs = selectors.current_question_set(capacity_request=req)
    add_form = AddQuestionForm(request.POST if request.POST.get("action") == "add" else None)
    errors: dict[str, list[str]] = {}
    typed = None  # the save's POST when it was refused: the page shows what was typed
    if request.method == "POST" and qs is not None:
        try:
            version = _apply_set_edit(request, req, add_form)
        except ValidationError as exc:
            errors, page = _errors_of(exc)
            if request.POST.get("action") not in ("add", "remove"):
                typed = request.POST
            if request.POST.get("action") == "add":
                errors_into_form(add_form, exc)
            for message in page:
                messages.error(request, message)
        else:
            if version is not None:
                messages.success(request, f"Saved as version {version.version}.")
                return redirect("questionnaire:set-edit", pk=pk)
    specs = selectors.question_specs(question_set=qs) if qs else []
    targets = selectors.targets_of(qs)
    if typed is not None:
        specs = [_as_typed(s, typed) for s in specs]
    return render(
        request,
        "questionnaire/set_edit.html",
        {
            "req": req,
            "qs": qs,
            "specs": specs,
            "errors": errors,
            "rules": RULES,
            "severities": SEVERITIES,
            "target_rows": _target_rows(targets, typed),
            "transport": typed.get("required_transport", "")
            if typed is not None
            else (qs.required_transport if qs else ""),
            "target_source": selectors.targets_for(capacity_request=req, question_set=qs)["source"],
            "path": selectors.required_transport(capacity_request=req, question_set=qs),
            "add_form": add_form,
            "editable": REQUEST.decide(
                req, "prepare", actor=request_actor(req, request.user)
            ).allowed,
            "in_use": qs is not None and services.question_sets.question_set_in_use(qs),
        },
    )


def _as_typed(spec: QuestionSpec, typed: Any) -> QuestionSpec:
    key = spec.key
    return replace(
        spec,
        required=typed.get(f"required-{key}") == "on",
        rule=typed.get(f"rule-{key}", ""),
        rule_value=typed.get(f"rule_value-{key}", ""),
    )


def _target_rows(targets: dict[str, dict[str, Any]], typed: Any) -> list[dict[str, str]]:
    """Per severity, the response and restore boxes' text: what was typed after a refused
    save, else the stored minutes."""
    rows = []
    for sev in SEVERITIES:
        row = {"sev": sev}
        for clock in ("response", "restore"):
            stored = targets[clock].get(sev)
            shown = f"{stored} min" if stored not in (None, "") else ""
            row[clock] = typed.get(f"target_{clock}_{sev}", "") if typed is not None else shown
        rows.append(row)
    return rows


def _apply_set_edit(request: HttpRequest, req: Any, add_form: AddQuestionForm) -> Any:
    action, user = request.POST.get("action"), user_of(request)
    if action == "add":
        if not add_form.is_valid():
            return None
        return services.question_add(capacity_request=req, user=user, data=add_form.cleaned_data)
    if action == "remove":
        return services.question_remove(
            capacity_request=req, user=user, key=request.POST.get("key", "")
        )
    keys = request.POST.getlist("keys")
    flags = {
        k: {
            "required": request.POST.get(f"required-{k}") == "on",
            "rule": request.POST.get(f"rule-{k}", ""),
            "rule_value": request.POST.get(f"rule_value-{k}", ""),
        }
        for k in keys
    }
    return services.question_set_update(
        capacity_request=req,
        user=user,
        flags=flags,
        target_response={s: request.POST.get(f"target_response_{s}") for s in SEVERITIES},
        target_restore={s: request.POST.get(f"target_restore_{s}") for s in SEVERITIES},
        required_transport=request.POST.get("required_transport", ""),
    )
