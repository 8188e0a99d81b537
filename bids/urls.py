from django.urls import path

from bids.views import (
    approvals,
    attachments,
    bids,
    clarifications,
    final_round,
    gate,
    lots,
    onboarding,
    requests,
)

app_name = "bids"

urlpatterns = [
    path("approvals/", approvals.approval_policy, name="approval-policy"),
    path("approvals/delegations/", approvals.delegation_create, name="delegation-create"),
    path(
        "approvals/delegations/<int:pk>/remove/",
        approvals.delegation_end,
        name="delegation-end",
    ),
    path("requests/", requests.request_list, name="request-list"),
    path("requests/new/", requests.request_create, name="request-create"),
    path("requests/<int:pk>/", requests.request_detail, name="request-detail"),
    path("requests/<int:pk>/edit/", requests.request_edit, name="request-edit"),
    path("requests/<int:pk>/publish/", requests.request_publish, name="request-publish"),
    path("requests/<int:pk>/close/", requests.request_close, name="request-close"),
    path("requests/<int:pk>/cancel/", requests.request_cancel, name="request-cancel"),
    path("requests/<int:pk>/reopen/", requests.request_reopen, name="request-reopen"),
    path(
        "requests/<int:pk>/final-round/",
        final_round.request_final_round,
        name="request-final-round",
    ),
    path("requests/<int:pk>/addenda/", requests.request_addendum, name="request-addendum"),
    path("requests/<int:pk>/questions/", clarifications.question_ask, name="question-ask"),
    path(
        "requests/<int:pk>/questions/<int:number>/answer/",
        clarifications.question_answer,
        name="question-answer",
    ),
    path(
        "requests/<int:pk>/addenda/<int:number>/acknowledge/",
        clarifications.addendum_acknowledge,
        name="addendum-acknowledge",
    ),
    path("requests/<int:pk>/invite/", requests.request_invite, name="request-invite"),
    path(
        "requests/<int:pk>/invite-by-email/",
        onboarding.supplier_invite,
        name="supplier-invite",
    ),
    path("join/<str:token>/", onboarding.supplier_join, name="supplier-join"),
    path(
        "requests/<int:pk>/suppliers/<int:provider>/",
        onboarding.supplier_profile,
        name="supplier-profile",
    ),
    path(
        "requests/<int:pk>/suppliers/<int:provider>/documents/<int:document>/",
        onboarding.supplier_document,
        name="supplier-document",
    ),
    path("requests/<int:pk>/gate/", gate.gate_edit, name="gate-edit"),
    path("requests/<int:pk>/gate/accept/", gate.gate_accept, name="gate-accept"),
    path("requests/<int:pk>/gate/nda/", gate.gate_nda, name="gate-nda"),
    path("requests/<int:pk>/lots/new/", lots.lot_add, name="lot-add"),
    path("requests/<int:pk>/lots/<int:number>/edit/", lots.lot_edit, name="lot-edit"),
    path("requests/<int:pk>/lots/<int:number>/remove/", lots.lot_remove, name="lot-remove"),
    path("requests/<int:pk>/bid/", bids.bid_start, name="bid-start"),
    path("inbox/", requests.inbox, name="inbox"),
    path("bids/<int:pk>/", bids.bid_detail, name="bid-detail"),
    path("bids/<int:pk>/edit/", bids.bid_edit, name="bid-edit"),
    path("bids/<int:pk>/submit/", bids.bid_submit, name="bid-submit"),
    path("bids/<int:pk>/withdraw/", bids.bid_withdraw, name="bid-withdraw"),
    path("bids/<int:pk>/revisions/<int:number>/", bids.revision_detail, name="revision-detail"),
    path("bids/<int:pk>/attachments/", attachments.attachment_upload, name="bid-attachments"),
    path(
        "bids/<int:pk>/attachments/<int:attachment>/",
        attachments.attachment_download,
        name="bid-attachment-download",
    ),
    path(
        "bids/<int:pk>/attachments/<int:attachment>/remove/",
        attachments.attachment_remove,
        name="bid-attachment-remove",
    ),
]
