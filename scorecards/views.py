"""The provider scorecard page and its downloads."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify

from orgs.access import active_org, org_required
from scorecards import exports, selectors


def _card(
    request: HttpRequest, pk: int, *, page: object = 1, per_page: int = selectors.PAGE_SIZE
) -> selectors.Scorecard:
    viewer = active_org(request)
    provider = selectors.scorecard_provider(pk=pk, viewer=viewer)
    assert viewer is not None  # scorecard_provider 404s without one
    return selectors.scorecard_for(
        provider=provider, viewer=viewer, now=timezone.now(), page=page, per_page=per_page
    )


# A download carries every reservation's delivered figures (a page shows ten).
EVERY = 100_000


@org_required()
def scorecard(request: HttpRequest, pk: int) -> HttpResponse:
    card = _card(request, pk, page=request.GET.get("page") or 1)
    return render(request, "scorecards/provider.html", {"card": card})


def _download(card: selectors.Scorecard, fmt: str) -> HttpResponse:
    name = f"scorecard-{slugify(card.provider.name) or card.provider.pk}.{fmt}"
    if fmt == "csv":
        body, kind = exports.scorecard_csv(card), "text/csv; charset=utf-8"
    else:
        body = exports.scorecard_xlsx(card)
        kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    response = HttpResponse(body, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@org_required()
def scorecard_csv(request: HttpRequest, pk: int) -> HttpResponse:
    return _download(_card(request, pk, per_page=EVERY), "csv")


@org_required()
def scorecard_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    return _download(_card(request, pk, per_page=EVERY), "xlsx")
