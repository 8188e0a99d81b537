"""What a notice is about. Each code is one row of the preferences table."""

from django.db import models

from orgs.choices import OrgKind


class Event(models.TextChoices):
    INVITATION = "invitation", "Invitation to bid"
    DEADLINE_CHANGED = "deadline_changed", "Bid deadline changed"
    # Sent by bids' addendum_publish, also when the addendum answers a clarification question.
    ADDENDUM = "addendum", "Addendum to a request"
    QUESTION_ASKED = "question_asked", "Question from an invited provider"
    QUESTION_ANSWERED = "question_answered", "Answer to a question"
    BID_SUBMITTED = "bid_submitted", "Bid revision submitted (open requests)"
    BIDS_OPENED = "bids_opened", "Sealed bids opened"
    # Wired where early close and reopen live (bids' request services), not by this app.
    REQUEST_CLOSED = "request_closed", "Bidding closed early"
    REQUEST_REOPENED = "request_reopened", "Bidding reopened"
    # Wired in bids' final_round_open: shortlisted or not, each provider hears of its own bid.
    FINAL_ROUND = "final_round", "Best-and-final round: shortlisted or not"
    AWARD = "award", "Your bid won"
    LOSS = "loss", "Your bid lost, with a debrief"
    ACCEPTANCE_REQUESTED = "acceptance_requested", "Burn-in verdict awaits your decision"
    PILOT_INVITED = "pilot_invited", "Invitation to a pilot before the award"
    PILOT_CHECKED = "pilot_checked", "Pilot evidence checked"
    # Wired with the acceptance-override approval.
    OVERRIDE_APPROVAL = "override_approval", "Acceptance override awaits approval"
    # Wired with approval by policy (bids.approval_notices): the approvers, then the asker.
    APPROVAL = "approval", "Publish or award awaits approval, or was decided"
    ACCEPTANCE_DECIDED = "acceptance_decided", "Reservation accepted or rejected"
    INCIDENT_OPENED = "incident_opened", "Incident opened"
    CLOCK_WARNING = "clock_warning", "Incident clock at 75 % of its target"
    CLOCK_BREACHED = "clock_breached", "Incident clock breached"
    INCIDENT_CLOSED = "incident_closed", "Incident closed"
    REPAIR_ESTIMATE = "repair_estimate", "Repair estimate posted or revised"
    MAINTENANCE_ANNOUNCED = "maintenance_announced", "Maintenance announced"
    MAINTENANCE_AGREED = "maintenance_agreed", "Short-notice maintenance agreed"
    CHANGE_ANNOUNCED = "change_announced", "Planned driver, firmware or image change announced"
    CANARY_CHECKED = "canary_checked", "Release canary checked"
    CHANGE_ANSWERED = "change_answered", "Planned change accepted or objected to"
    # Wired from orgs' invitation signals (notices.members).
    MEMBERSHIP = "membership", "Invitation to join an organisation, or a member joining another"
    # Sent by suppliers' expiry sweep to the provider's administrators.
    COMPLIANCE_EXPIRING = "compliance_expiring", "A compliance document expires soon"


# Who receives each event, as the preferences page says it.
AUDIENCE = {
    Event.INVITATION: "providers",
    Event.DEADLINE_CHANGED: "providers",
    Event.ADDENDUM: "providers",
    Event.QUESTION_ASKED: "buyers",
    Event.QUESTION_ANSWERED: "providers",
    Event.BID_SUBMITTED: "buyers",
    Event.BIDS_OPENED: "buyers",
    Event.REQUEST_CLOSED: "providers",
    Event.REQUEST_REOPENED: "providers",
    Event.FINAL_ROUND: "providers",
    Event.AWARD: "providers",
    Event.LOSS: "providers",
    Event.ACCEPTANCE_REQUESTED: "buyers",
    Event.PILOT_INVITED: "providers",
    Event.PILOT_CHECKED: "both parties",
    Event.OVERRIDE_APPROVAL: "buyers",
    Event.APPROVAL: "buyers",
    Event.ACCEPTANCE_DECIDED: "providers",
    Event.INCIDENT_OPENED: "both parties",
    Event.CLOCK_WARNING: "both parties",
    Event.CLOCK_BREACHED: "both parties",
    Event.INCIDENT_CLOSED: "both parties",
    Event.REPAIR_ESTIMATE: "buyers",
    Event.MAINTENANCE_ANNOUNCED: "buyers",
    Event.MAINTENANCE_AGREED: "providers",
    Event.CHANGE_ANNOUNCED: "buyers",
    Event.CANARY_CHECKED: "both parties",
    Event.CHANGE_ANSWERED: "providers",
    Event.MEMBERSHIP: "the invited person; administrators",
    Event.COMPLIANCE_EXPIRING: "provider administrators",
}

_BOTH = frozenset({OrgKind.BUYER, OrgKind.PROVIDER})
# The kinds of organisation each audience above belongs to: the events an organisation's webhook
# may carry. An audience worded anew without a row here stops the import.
_AUDIENCE_KINDS: dict[str, frozenset[str]] = {
    "buyers": frozenset({OrgKind.BUYER}),
    "providers": frozenset({OrgKind.PROVIDER}),
    "both parties": _BOTH,
    # suppliers' expiry sweep notifies the provider as an organisation, its admins by name.
    "provider administrators": frozenset({OrgKind.PROVIDER}),
    "the invited person; administrators": _BOTH,
}
RECEIVING_KINDS: dict[Event, frozenset[str]] = {
    event: _AUDIENCE_KINDS[audience] for event, audience in AUDIENCE.items()
}
