"""The incident ticket as a PDF. It lives here, not in incidents, because the WeasyPrint render
helper is annexes' (annexes may import incidents; incidents may not import annexes). Tenancy is
the incident's: both parties, everyone else a 404."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_GET

from annexes.document.render import render_pdf
from incidents.models import Incident
from incidents.selectors import incident_get
from incidents.ticket import ticket_for
from orgs.access import active_org, org_required


def incident_ticket_bytes(incident: Incident) -> bytes:
    """The ticket's seven sections as a PDF; the page's download and the API's serve these."""
    html = render_to_string(
        "pdf/incident_ticket.html",
        {"ticket": ticket_for(incident), "generated": timezone.now()},
    )
    return render_pdf(html)


@org_required()
@require_GET
def incident_ticket_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    incident = incident_get(org_ids=[org.pk] if org is not None else [], pk=pk)
    response = HttpResponse(incident_ticket_bytes(incident), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="incident-{incident.pk}-ticket.pdf"'
    return response
