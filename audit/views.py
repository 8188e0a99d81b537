from __future__ import annotations

import csv
import json

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from audit.forms import LogFilterForm
from audit.selectors import chain_verify, entries_for, log_choices, org_log, valid_object_key
from core.spreadsheet import safe_row
from orgs.access import active_org, org_required

# `number`: the entry's place in the object's history as the reader's organisation reads it
# (audit.selectors.entries_for); the chain's global `seq` and hashes are staff-only.
CSV_COLUMNS = [
    "number", "at", "actor", "organisation", "party", "action", "object", "before", "after",
    "reason",
]  # fmt: skip


@login_required
def verify(request: HttpRequest) -> HttpResponse:
    """Intact or not, and where it breaks: no entry's contents, so anyone signed in may ask."""
    return render(request, "audit/verify.html", {"result": chain_verify()})


@org_required()
def export_csv(request: HttpRequest, obj_key: str) -> HttpResponse:
    """The object's history as the acting organisation reads it. An object it reads nothing
    of (another provider's bid, a request it is not invited to) is not found, as on every
    other page, and exactly as an object that does not exist: never a header row alone."""
    if not valid_object_key(obj_key):
        raise Http404
    entries = entries_for(org=active_org(request), obj_key=obj_key)
    if not entries.exists():
        raise Http404
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="audit-{obj_key.replace(":", "-")}.csv"'
    )
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    for e in entries:
        number: int = e.number  # type: ignore[attr-defined]  # annotated by entries_for
        writer.writerow(
            safe_row(
            [
                number, e.at.isoformat(), e.actor_name, e.org.name if e.org else "", e.party,
                e.action, e.obj_key, _json(e.before), _json(e.after), e.reason,
            ])
        )  # fmt: skip
    return response


LOG_PAGE = 50
LOG_COLUMNS = [
    "at", "actor", "organisation", "party", "action", "object", "before", "after", "reason",
]  # fmt: skip


def _log_form(request: HttpRequest) -> LogFilterForm:
    actions, actors = log_choices(org=active_org(request))
    form = LogFilterForm(request.GET or None, actions=actions, actors=actors)
    if form.is_bound:
        form.is_valid()
    return form


@org_required()
def org_log_page(request: HttpRequest) -> HttpResponse:
    """Every entry the acting organisation may read, searchable and filtered, newest first."""
    form = _log_form(request)
    entries = org_log(org=active_org(request), filters=form.filters())
    page = Paginator(entries, LOG_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "audit/log.html",
        {"form": form, "page": page, "query": query.urlencode()},
        status=400 if form.errors else 200,
    )


@org_required()
def org_log_csv(request: HttpRequest) -> HttpResponse:
    """The log as filtered on the page, every matching entry (not one page of it)."""
    form = _log_form(request)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="audit-log.csv"'
    writer = csv.writer(response)
    writer.writerow(LOG_COLUMNS)
    for e in org_log(org=active_org(request), filters=form.filters()).iterator(chunk_size=2000):
        writer.writerow(
            safe_row(
            [
                e.at.isoformat(), e.actor_name, e.org.name if e.org else "", e.party,
                e.action, e.obj_key, _json(e.before), _json(e.after), e.reason,
            ])
        )  # fmt: skip
    return response


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True) if value else ""
