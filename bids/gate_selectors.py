"""Whether a request's details are open to an organisation: always to its buyer; to an invited
provider once the request has no gate or the provider accepted it. The details are everything
past the title: the description and allocation, the fixture, the terms, the questionnaire, the
lots, the addenda and questions, and bidding itself. `bids.selectors.request_get_for_org`
raises `DetailsGated` for a gated invitee, so every page, API call and download that reads a
request through it respects the gate."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from bids.models import CapacityRequest, DetailsGate, GateAcceptance, SupplierInvitation
from core.errors import Conflict
from orgs.models import Organization


class DetailsGated(Conflict):
    """The invitee has not accepted the request's gate yet (the API answers 409; a page sends
    the user to the request's gate)."""

    def __init__(self, capacity_request: CapacityRequest) -> None:
        super().__init__(
            f"The details of “{capacity_request.title}” open once an administrator of your "
            "organisation accepts its non-disclosure terms on the request's page."
        )
        self.request_id = capacity_request.pk


def gate_for(*, capacity_request: CapacityRequest) -> DetailsGate | None:
    return DetailsGate.objects.filter(request=capacity_request).first()


def acceptance_for(
    *, capacity_request: CapacityRequest, org: Organization
) -> GateAcceptance | None:
    return (
        GateAcceptance.objects.filter(request=capacity_request, provider=org)
        .select_related("accepted_by")
        .first()
    )


def with_gate_state(
    requests: QuerySet[CapacityRequest], *, org: Organization
) -> QuerySet[CapacityRequest]:
    """Each request with `details_gated`: it has a gate `org` has not accepted (read in the
    same query, so the check costs nothing on every details read)."""
    return requests.annotate(
        has_gate=Exists(DetailsGate.objects.filter(request=OuterRef("pk"))),
        gate_accepted=Exists(GateAcceptance.objects.filter(request=OuterRef("pk"), provider=org)),
    )


def only_details_open(requests: QuerySet[CapacityRequest]) -> QuerySet[CapacityRequest]:
    """Of requests read `with_gate_state`, those whose details the org may read: ungated, or
    gated and accepted (a list that shows each request's details, such as the API's, leaves
    the others out)."""
    return requests.filter(Q(has_gate=False) | Q(gate_accepted=True))


def details_open(*, capacity_request: CapacityRequest, org: Organization) -> bool:
    if org.pk == capacity_request.buyer_id:
        return True
    has_gate = getattr(capacity_request, "has_gate", None)  # read by `with_gate_state`
    if has_gate is not None:
        return not has_gate or bool(getattr(capacity_request, "gate_accepted", False))
    if not DetailsGate.objects.filter(request=capacity_request).exists():
        return True
    return GateAcceptance.objects.filter(request=capacity_request, provider=org).exists()


def require_details_open(*, capacity_request: CapacityRequest, org: Organization) -> None:
    if not details_open(capacity_request=capacity_request, org=org):
        raise DetailsGated(capacity_request)


def acceptances(*, capacity_request: CapacityRequest) -> QuerySet[GateAcceptance]:
    """Who accepted the gate, for the buyer: none while the request's bids are sealed (who
    accepted, and when, would say who is bidding)."""
    if capacity_request.bids_hidden_from_buyer:
        return GateAcceptance.objects.none()
    return capacity_request.gate_acceptances.select_related("provider", "accepted_by").order_by(
        "accepted_at"
    )


def supplier_invitations(*, capacity_request: CapacityRequest) -> QuerySet[SupplierInvitation]:
    return capacity_request.supplier_invitations.select_related("provider")
