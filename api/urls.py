"""API routes under /api/v1/, its schema and docs, and the browser page for API tokens."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

import api.schema  # noqa: F401  (registers the schema extensions)
from api.errors import unknown_route
from api.incident_urls import INCIDENT_ROUTES
from api.lot_urls import LOT_ROUTES
from api.outcome_urls import OUTCOME_ROUTES
from api.views import (
    annexes,
    approvals,
    attachments,
    audit,
    baseline,
    bids,
    buyer,
    changes,
    clarifications,
    delivery,
    evidence,
    failures,
    fixture_schema,
    incidents,
    invitations,
    me,
    member_invitations,
    members,
    notices,
    parts,
    pilots,
    references,
    requests,
    reservations,
    scenarios,
    scorecards,
    signing,
    team,
    tokens,
    usage,
    webhooks,
)

app_name = "api"

v1 = [
    path(
        "runs/<int:run_id>/evidence/",
        evidence.RunEvidenceView.as_view(),
        name="run-evidence",
    ),
    path("runs/<int:pk>/recheck/", evidence.RunRecheckView.as_view(), name="run-recheck"),
    path("evidence/<int:pk>/retry/", evidence.EvidenceRetryView.as_view(), name="evidence-retry"),
    path(
        "evidence/<int:pk>/withdraw/",
        evidence.EvidenceWithdrawView.as_view(),
        name="evidence-withdraw",
    ),
    # Schema and docs: public, served from our own static files.
    path(
        "schema/",
        SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="schema",
    ),
    path(
        "docs/",
        SpectacularSwaggerView.as_view(
            url_name="api:schema", authentication_classes=[], permission_classes=[]
        ),
        name="docs",
    ),
    path(
        "redoc/",
        SpectacularRedocView.as_view(
            url_name="api:schema",
            template_name="api/redoc.html",
            authentication_classes=[],
            permission_classes=[],
        ),
        name="redoc",
    ),
    path("fixture-schema/", fixture_schema.fixture_schema, name="fixture-schema"),
    path("me/", me.MeView.as_view(), name="me"),
    path("members/", members.MemberListView.as_view(), name="member-list"),
    path(
        "members/invitations/",
        member_invitations.MemberInvitationListView.as_view(),
        name="member-invitations",
    ),
    path(
        "members/invitations/<int:pk>/",
        member_invitations.MemberInvitationDetailView.as_view(),
        name="member-invitation",
    ),
    path(
        "me/invitations/", member_invitations.MyInvitationListView.as_view(), name="my-invitations"
    ),
    path(
        "me/invitations/<int:pk>/accept/",
        member_invitations.MyInvitationAcceptView.as_view(),
        name="my-invitation-accept",
    ),
    path(
        "me/invitations/<int:pk>/decline/",
        member_invitations.MyInvitationDeclineView.as_view(),
        name="my-invitation-decline",
    ),
    path("webhooks/", webhooks.WebhookListView.as_view(), name="webhook-list"),
    path("webhooks/<uuid:pk>/", webhooks.WebhookDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<uuid:pk>/rotate/", webhooks.WebhookRotateView.as_view(), name="webhook-rotate"),
    path(
        "webhooks/<uuid:pk>/deliveries/",
        webhooks.WebhookDeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhook-deliveries/<uuid:pk>/redeliver/",
        webhooks.WebhookRedeliverView.as_view(),
        name="webhook-delivery-redeliver",
    ),
    path("audit/", audit.AuditListView.as_view(), name="audit-list"),
    path("notices/", notices.NoticeListView.as_view(), name="notice-list"),
    path("notices/<uuid:pk>/read/", notices.NoticeReadView.as_view(), name="notice-read"),
    path("providers/", invitations.ProviderListView.as_view(), name="provider-list"),
    path(
        "providers/<int:pk>/scorecard/",
        scorecards.ScorecardView.as_view(),
        name="provider-scorecard",
    ),
    path("requests/", requests.RequestListView.as_view(), name="request-list"),
    path("requests/<int:pk>/", requests.RequestDetailView.as_view(), name="request-detail"),
    path(
        "requests/<int:pk>/publish/",
        requests.RequestPublishView.as_view(),
        name="request-publish",
    ),
    path("requests/<int:pk>/close/", requests.RequestCloseView.as_view(), name="request-close"),
    path("requests/<int:pk>/cancel/", requests.RequestCancelView.as_view(), name="request-cancel"),
    path("requests/<int:pk>/reopen/", requests.RequestReopenView.as_view(), name="request-reopen"),
    path(
        "requests/<int:pk>/final-round/",
        requests.RequestFinalRoundView.as_view(),
        name="request-final-round",
    ),
    *LOT_ROUTES,
    path("requests/<int:pk>/pilots/", pilots.RequestPilotsView.as_view(), name="request-pilots"),
    path(
        "requests/<int:pk>/pilot-scoring/",
        pilots.PilotScoringView.as_view(),
        name="request-pilot-scoring",
    ),
    path("pilots/", pilots.PilotListView.as_view(), name="pilot-list"),
    path("pilots/<int:pk>/", pilots.PilotDetailView.as_view(), name="pilot-detail"),
    path("pilots/<int:pk>/evidence/", pilots.PilotEvidenceView.as_view(), name="pilot-evidence"),
    path(
        "reservations/<int:pk>/changes/",
        changes.ReservationChangesView.as_view(),
        name="reservation-changes",
    ),
    path("changes/<int:pk>/", changes.ChangeDetailView.as_view(), name="change-detail"),
    path("changes/<int:pk>/answer/", changes.ChangeAnswerView.as_view(), name="change-answer"),
    path(
        "changes/<int:pk>/canary/evidence/",
        changes.CanaryEvidenceView.as_view(),
        name="change-canary-evidence",
    ),
    path(
        "pilot-evidence/<int:pk>/retry/",
        pilots.PilotEvidenceRetryView.as_view(),
        name="pilot-evidence-retry",
    ),
    path(
        "requests/<int:pk>/scenarios/",
        scenarios.ScenarioListView.as_view(),
        name="request-scenarios",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/",
        scenarios.ScenarioDetailView.as_view(),
        name="request-scenario",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/solve/",
        scenarios.ScenarioSolveView.as_view(),
        name="request-scenario-solve",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/award/",
        scenarios.ScenarioAwardView.as_view(),
        name="request-scenario-award",
    ),
    path("requests/<int:pk>/addenda/", requests.AddendumListView.as_view(), name="request-addenda"),
    path(
        "requests/<int:pk>/addenda/<int:number>/acknowledge/",
        clarifications.AddendumAcknowledgeView.as_view(),
        name="request-addendum-acknowledge",
    ),
    path(
        "requests/<int:pk>/questions/",
        clarifications.QuestionListView.as_view(),
        name="request-questions",
    ),
    path(
        "requests/<int:pk>/questions/<int:number>/answer/",
        clarifications.QuestionAnswerView.as_view(),
        name="request-question-answer",
    ),
    path(
        "requests/<int:pk>/invitations/",
        invitations.InvitationListView.as_view(),
        name="request-invitations",
    ),
    path(
        "requests/<int:pk>/invitations/<slug:provider>/",
        invitations.InvitationDetailView.as_view(),
        name="request-invitation",
    ),
    path("requests/<int:pk>/fixture/", parts.FixtureView.as_view(), name="request-fixture"),
    path(
        "requests/<int:pk>/fixture/references/",
        references.FixtureReferenceListView.as_view(),
        name="request-fixture-references",
    ),
    path(
        "fixture-references/<int:pk>/file/",
        references.FixtureReferenceFileView.as_view(),
        name="fixture-reference-file",
    ),
    path(
        "requests/<int:pk>/fixture/bundle/",
        parts.FixtureBundleView.as_view(),
        name="request-fixture-bundle",
    ),
    path("requests/<int:pk>/terms/", parts.TermsView.as_view(), name="request-terms"),
    path(
        "requests/<int:pk>/questionnaire/",
        parts.QuestionnaireView.as_view(),
        name="request-questionnaire",
    ),
    path("requests/<int:pk>/weights/", parts.WeightsView.as_view(), name="request-weights"),
    path("requests/<int:pk>/bids/", buyer.RequestBidListView.as_view(), name="request-bids"),
    path(
        "requests/<int:pk>/comparison/",
        buyer.ComparisonView.as_view(),
        name="request-comparison",
    ),
    path("requests/<int:pk>/award/", buyer.AwardView.as_view(), name="request-award"),
    path(
        "requests/<int:pk>/approvals/",
        approvals.RequestApprovalListView.as_view(),
        name="request-approvals",
    ),
    path(
        "approvals/<int:pk>/approve/",
        approvals.ApprovalApproveView.as_view(),
        name="approval-approve",
    ),
    path(
        "approvals/<int:pk>/decline/",
        approvals.ApprovalDeclineView.as_view(),
        name="approval-decline",
    ),
    path(
        "approvals/<int:pk>/withdraw/",
        approvals.ApprovalWithdrawView.as_view(),
        name="approval-withdraw",
    ),
    path("requests/<int:pk>/team/", team.TeamEvaluationView.as_view(), name="request-team"),
    path("requests/<int:pk>/team/mine/", team.MyEvaluatorView.as_view(), name="request-team-mine"),
    path("requests/<int:pk>/annexes/", annexes.AnnexListView.as_view(), name="request-annexes"),
    path("annexes/<int:pk>/pdf/", annexes.AnnexPdfView.as_view(), name="annex-pdf"),
    path("annex-jobs/<int:pk>/", annexes.AnnexJobView.as_view(), name="annex-job"),
    path(
        "annexes/<int:pk>/signatures/",
        signing.AnnexSignaturesView.as_view(),
        name="annex-signatures",
    ),
    path("annexes/<int:pk>/sign/", signing.AnnexSignView.as_view(), name="annex-sign"),
    path(
        "annexes/<int:pk>/signed-pdf/",
        signing.AnnexSignedPdfView.as_view(),
        name="annex-signed-pdf",
    ),
    path(
        "organization/signing-identity/",
        signing.SigningIdentityView.as_view(),
        name="signing-identity",
    ),
    path(
        "organization/signing-identity/trial/",
        signing.SigningIdentityTrialView.as_view(),
        name="signing-identity-trial",
    ),
    path("bids/", bids.BidListView.as_view(), name="bid-list"),
    path("bids/<int:pk>/", bids.BidDetailView.as_view(), name="bid-detail"),
    path("bids/<int:pk>/submit/", bids.BidSubmitView.as_view(), name="bid-submit"),
    path("bids/<int:pk>/withdraw/", bids.BidWithdrawView.as_view(), name="bid-withdraw"),
    path(
        "bids/<int:pk>/conflicts/keep/",
        bids.BidConflictsKeepView.as_view(),
        name="bid-conflicts-keep",
    ),
    path("bids/<int:pk>/revisions/", bids.RevisionListView.as_view(), name="bid-revisions"),
    path(
        "bids/<int:pk>/attachments/",
        attachments.BidAttachmentListView.as_view(),
        name="bid-attachments",
    ),
    path(
        "bids/<int:pk>/attachments/<int:attachment>/file/",
        attachments.BidAttachmentFileView.as_view(),
        name="bid-attachment-file",
    ),
    path(
        "bids/<int:pk>/revisions/<int:number>/",
        bids.RevisionDetailView.as_view(),
        name="bid-revision",
    ),
    path("reservations/", reservations.ReservationListView.as_view(), name="reservation-list"),
    path(
        "reservations/<int:pk>/",
        reservations.ReservationDetailView.as_view(),
        name="reservation-detail",
    ),
    path(
        "reservations/<int:pk>/runs/",
        reservations.RunCreateView.as_view(),
        name="reservation-runs",
    ),
    path(
        "reservations/<int:pk>/accept/",
        reservations.ReservationAcceptView.as_view(),
        name="reservation-accept",
    ),
    path(
        "reservations/<int:pk>/reject/",
        reservations.ReservationRejectView.as_view(),
        name="reservation-reject",
    ),
    path(
        "reservations/<int:pk>/override/",
        reservations.OverrideRequestView.as_view(),
        name="reservation-override",
    ),
    path(
        "reservations/<int:pk>/override/approve/",
        reservations.OverrideApproveView.as_view(),
        name="reservation-override-approve",
    ),
    path(
        "reservations/<int:pk>/override/decline/",
        reservations.OverrideDeclineView.as_view(),
        name="reservation-override-decline",
    ),
    path(
        "reservations/<int:pk>/failed-runs/",
        failures.FailedRunUploadView.as_view(),
        name="reservation-failed-runs",
    ),
    path("failed-runs/", failures.FailedRunListView.as_view(), name="failed-run-list"),
    path("failed-runs/<int:pk>/", failures.FailedRunDetailView.as_view(), name="failed-run-detail"),
    path(
        "failed-runs/<int:pk>/retry/",
        failures.FailedRunRetryView.as_view(),
        name="failed-run-retry",
    ),
    path(
        "failed-runs/<int:pk>/incident/",
        incidents.IncidentOpenView.as_view(),
        name="failed-run-incident",
    ),
    path(
        "reservations/<int:pk>/incidents/",
        incidents.ReservationIncidentListView.as_view(),
        name="reservation-incidents",
    ),
    path(
        "reservations/<int:pk>/usage/",
        usage.ReservationUsageView.as_view(),
        name="reservation-usage",
    ),
    path(
        "reservations/<int:pk>/usage/<int:uid>/",
        usage.UsageDetailView.as_view(),
        name="usage-detail",
    ),
    path(
        "reservations/<int:pk>/usage/<int:uid>/mapping/",
        usage.UsageMappingView.as_view(),
        name="usage-mapping",
    ),
    path(
        "reservations/<int:pk>/usage/<int:uid>/focus/",
        usage.UsageFocusView.as_view(),
        name="usage-focus",
    ),
    path(
        "reservations/<int:pk>/usage/<int:uid>/retry/",
        usage.UsageRetryView.as_view(),
        name="usage-retry",
    ),
    path("reservations/<int:pk>/baseline/", baseline.BaselineView.as_view(), name="baseline"),
    path(
        "reservations/<int:pk>/baseline/accept/",
        baseline.BaselineAcceptView.as_view(),
        name="baseline-accept",
    ),
    path(
        "reservations/<int:pk>/baseline/reject/",
        baseline.BaselineRejectView.as_view(),
        name="baseline-reject",
    ),
    *INCIDENT_ROUTES,
    path(
        "reservations/<int:pk>/availability/",
        delivery.AvailabilityView.as_view(),
        name="reservation-availability",
    ),
    path(
        "reservations/<int:pk>/maintenance/",
        delivery.MaintenanceListView.as_view(),
        name="reservation-maintenance",
    ),
    path(
        "maintenance/<int:pk>/agree/",
        delivery.MaintenanceAgreeView.as_view(),
        name="maintenance-agree",
    ),
    *OUTCOME_ROUTES,
]

urlpatterns = [
    path("account/tokens/", tokens.token_list, name="token-list"),
    path("account/tokens/<int:pk>/revoke/", tokens.token_revoke, name="token-revoke"),
    path("api/v1/", include(v1)),
    re_path(r"^api/(?P<rest>.*)$", unknown_route),  # last: unknown API URLs answer JSON 404
]
