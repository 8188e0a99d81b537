"""The buyer's comparison page, its scoring status, weights, re-scoring and exports, and the
pilot moves made from it (the invitation, scoring on verified figures)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from acceptance.services.pilot import pilot_invite, pilot_scoring_set
from bids import selectors
from bids.models import Bid, CapacityRequest
from core.web import errors_into_form, flash_errors, flashed_or_onto_form
from engine.scoring import CRITERIA
from evaluation import comparison, exports, rounds
from evaluation.anonymise import ANONYMOUS, LABELS, anonymous_labels, labels_query
from evaluation.lots import lot_comparison
from evaluation.pilots import PilotInviteForm, pilot_section
from evaluation.selectors import conflicted_bids
from evaluation.services import request_set_weights, scoring_queue
from evaluation.team.recombine import VIEW_WEIGHTS
from evaluation.team.services import evaluator_view_save
from evaluation.views_team import team_context, team_form_context
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


class WeightsForm(forms.Form):
    """Raw text per weight: the scoring package's own validation words the errors."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        for name in CRITERIA:
            self.fields[name] = forms.CharField(
                label=comparison.CRITERION_LABELS[name],
                widget=forms.NumberInput(attrs={"min": "0", "step": "any"}),
            )


class PilotScoringForm(forms.Form):
    use_verified = forms.BooleanField(
        label="Score on the pilots' verified figures where a pilot verified them",
        required=False,
    )


def _buyer_request(request: HttpRequest, pk: int) -> CapacityRequest:
    return selectors.request_get_for_buyer(org=active_org(request), pk=pk)


def _anonymise(request: HttpRequest) -> bool:
    return request.GET.get(LABELS) == ANONYMOUS


def _labels_query(view: comparison.Comparison) -> str:
    return labels_query(anonymised=view.anonymised)


def _weights_shown(req: CapacityRequest) -> dict[str, str]:
    """The request's weights as its form and the comparison's summary print them."""
    return {name: f"{float(req.weights.get(name, 0)):g}" for name in CRITERIA}


def _weights_form(req: CapacityRequest, data: object = None) -> WeightsForm:
    return WeightsForm(data, initial=_weights_shown(req))


def _compare_page(
    request: HttpRequest,
    view: comparison.Comparison,
    status: int = 200,
    pilot_form: PilotInviteForm | None = None,
    pilot_bid: int | None = None,
) -> HttpResponse:
    req = view.request
    sealed = view.state == comparison.SEALED
    pilots = (
        None
        if sealed
        else pilot_section(
            capacity_request=req,
            user=request.user,
            names={col.bid_id: col.name for col in view.columns},
            anonymise=view.anonymised,
            bound=pilot_form,
            bound_bid=pilot_bid,
            use_verified=view.uses_verified,
        )
    )
    lots = (
        []
        if view.state == comparison.SEALED
        else lot_comparison(
            capacity_request=req,
            names={col.bid_id: col.name for col in view.columns},
            anonymise=view.anonymised,
        )
    )
    return render(
        request,
        "evaluation/compare.html",
        {
            "req": req,
            "cmp": view,
            "conflicted": [] if sealed else conflicted_bids(view=view),
            "lots": lots,
            # The form lives on the weights page; here a summary and the way there.
            "weights": [
                (comparison.CRITERION_LABELS[name], value)
                for name, value in _weights_shown(req).items()
            ],
            "labels_query": _labels_query(view),
            "rounds": rounds.round_comparison(capacity_request=req, anonymise=view.anonymised),
            "pilots": pilots,
            "pilot_scoring_form": PilotScoringForm(
                initial={"use_verified": pilots.use_verified if pilots else False}
            ),
            **team_context(request, view),
        },
        status=status,
    )


@org_required(OrgKind.BUYER)
def compare(request: HttpRequest, pk: int) -> HttpResponse:
    req = _buyer_request(request, pk)
    view = comparison.comparison_for_buyer(
        capacity_request=req, anonymise=_anonymise(request), with_html=True
    )
    return _compare_page(request, view)


@org_required(OrgKind.BUYER)
@require_http_methods(["GET", "POST"])
def team_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The current member's own weights and ratings; a refused form shows what was typed."""
    req = _buyer_request(request, pk)
    view = comparison.comparison_for_buyer(
        capacity_request=req, anonymise=_anonymise(request), with_html=True
    )
    posted = request.POST if request.method == "POST" else None
    context = team_form_context(request, view, posted)
    form = context.get("team_form")
    if posted is None:
        return _team_page(request, view, context)
    if form is None:
        messages.error(request, context.get("team_blocker") or "There are no bids to evaluate.")
        return redirect("evaluation:request-compare", pk=pk)
    if form.is_valid():
        try:
            evaluator_view_save(
                capacity_request=req,
                user=user_of(request),
                weights={n: form.cleaned_data.get(n) for n in VIEW_WEIGHTS},
                judgements=form.judgements(),
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("evaluation:request-compare", pk=pk)
        else:
            messages.success(request, "Your weights and ratings are saved.")
            back = reverse("evaluation:request-compare", args=[pk]) + _labels_query(view)
            return redirect(back + "#team-evaluation")
    messages.error(request, "Check your weights and ratings marked below.")
    return _team_page(request, view, context, status=400)


def _team_page(
    request: HttpRequest, view: comparison.Comparison, team: dict[str, object], status: int = 200
) -> HttpResponse:
    context = {"req": view.request, "cmp": view, "labels_query": _labels_query(view), **team}
    return render(request, "evaluation/team_view.html", context, status=status)


@org_required(OrgKind.BUYER)
def compare_status(request: HttpRequest, pk: int) -> JsonResponse:
    """What the page polls while scoring runs: state, and counts, never numbers. Never the
    run's id either: ids are global, and every sealed submit anywhere queues a run."""
    req = _buyer_request(request, pk)
    state, run = comparison.comparison_state(capacity_request=req)
    body: dict[str, object] = {"state": state}
    if run is not None and state != comparison.SEALED:
        body.update(
            status=run.status,
            status_label=run.get_status_display(),
            bids=run.bid_count,
            error=run.error,
            attempts=run.attempts,
        )
    return JsonResponse(body, headers={"Cache-Control": "no-store"})


@org_required(OrgKind.BUYER)
@require_POST
def compare_rescore(request: HttpRequest, pk: int) -> HttpResponse:
    req = _buyer_request(request, pk)
    if req.bids_hidden_from_buyer:
        raise Http404
    scoring_queue(capacity_request=req)
    messages.info(request, "Scoring queued.")
    return redirect("evaluation:request-compare", pk=pk)


@org_required(OrgKind.BUYER)
def request_weights(request: HttpRequest, pk: int) -> HttpResponse:
    """The weights form; back to the comparison as the buyer left it, anonymised or not."""
    req = _buyer_request(request, pk)
    labels = labels_query(anonymised=_anonymise(request))
    form = _weights_form(req, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            request_set_weights(
                capacity_request=req, user=user_of(request), weights=form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Weights saved. The bids are being re-scored.")
            back = reverse("evaluation:request-compare", args=[pk]) + labels
            return redirect(back + "#scoring-status")
    elif request.method == "POST":
        flash_errors(request, ValidationError("Check the weights marked below."))
    context = {"req": req, "weights_form": form, "labels_query": labels}
    return render(request, "evaluation/compare_weights.html", context)


def _export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    req = _buyer_request(request, pk)
    view = comparison.comparison_for_buyer(capacity_request=req, anonymise=_anonymise(request))
    if view.state == comparison.SEALED or not view.columns:
        raise Http404
    return exports.comparison_response(view, fmt)


@org_required(OrgKind.BUYER)
def compare_csv(request: HttpRequest, pk: int) -> HttpResponse:
    return _export(request, pk, "csv")


@org_required(OrgKind.BUYER)
def compare_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    return _export(request, pk, "xlsx")


@org_required(OrgKind.BUYER)
@require_POST
def pilot_invite_view(request: HttpRequest, pk: int, bid_pk: int) -> HttpResponse:
    req = _buyer_request(request, pk)
    if req.bids_hidden_from_buyer:
        raise Http404
    try:
        bid = Bid.objects.select_related("request", "provider").get(pk=bid_pk, request=req)
    except Bid.DoesNotExist:
        raise Http404 from None
    form = PilotInviteForm.for_bid(bid, request.POST)
    if form.is_valid():
        try:
            pilot_invite(
                bid=bid,
                user=user_of(request),
                starts_on=form.cleaned_data["starts_on"],
                ends_on=form.cleaned_data["ends_on"],
                instructions=form.cleaned_data["instructions"],
            )
        except ValidationError as exc:
            if not hasattr(exc, "error_dict"):
                flash_errors(request, exc)
                return _back_to_pilots(request, pk)
            errors_into_form(form, exc)
        else:
            messages.success(
                request, f"{_bid_name(request, bid)} is invited to a pilot; it has been told."
            )
            return _back_to_pilots(request, pk)
    messages.error(request, "Check the pilot invitation's fields marked below.")
    view = comparison.comparison_for_buyer(
        capacity_request=req, anonymise=_anonymise(request), with_html=True
    )
    return _compare_page(request, view, status=400, pilot_form=form, pilot_bid=bid.pk)


@org_required(OrgKind.BUYER)
@require_POST
def pilot_scoring(request: HttpRequest, pk: int) -> HttpResponse:
    req = _buyer_request(request, pk)
    form = PilotScoringForm(request.POST)
    form.is_valid()
    use_verified = bool(form.cleaned_data.get("use_verified"))
    try:
        pilot_scoring_set(capacity_request=req, user=user_of(request), use_verified=use_verified)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request,
            "Scoring now uses the pilots' verified figures where they exist; the bids are "
            "being re-scored."
            if use_verified
            else "Scoring now uses the bids' claims; the bids are being re-scored.",
        )
    return _back_to_pilots(request, pk)


def _back_to_pilots(request: HttpRequest, pk: int) -> HttpResponse:
    """The comparison's pilot section, still anonymised if it was."""
    labels = labels_query(anonymised=_anonymise(request))
    return redirect(reverse("evaluation:request-compare", args=[pk]) + labels + "#pilots")


def _bid_name(request: HttpRequest, bid: Bid) -> str:
    """The bid as the comparison the buyer came from names it: its label while anonymised."""
    if not _anonymise(request):
        return bid.provider.name
    return anonymous_labels(capacity_request=bid.request).get(bid.pk, "The bid")
