"""The comparison of a request's bids: scores, weights, exports; the award, which reads them."""

from django.urls import path

from evaluation import views, views_approvals, views_award, views_scenarios

app_name = "evaluation"

urlpatterns = [
    path("approvals/<int:pk>/approve/", views_approvals.approval_approve, name="approval-approve"),
    path("approvals/<int:pk>/decline/", views_approvals.approval_refuse, name="approval-decline"),
    path("approvals/<int:pk>/withdraw/", views_approvals.approval_cancel, name="approval-withdraw"),
    path("bids/<int:pk>/award/", views_award.bid_award, name="bid-award"),
    path("requests/<int:pk>/compare/", views.compare, name="request-compare"),
    path("requests/<int:pk>/compare/status/", views.compare_status, name="request-compare-status"),
    path(
        "requests/<int:pk>/compare/rescore/", views.compare_rescore, name="request-compare-rescore"
    ),
    path("requests/<int:pk>/compare/export.csv", views.compare_csv, name="request-compare-csv"),
    path("requests/<int:pk>/compare/export.xlsx", views.compare_xlsx, name="request-compare-xlsx"),
    path("requests/<int:pk>/compare/team/", views.team_view, name="request-team-view"),
    path("requests/<int:pk>/weights/", views.request_weights, name="request-weights"),
    path(
        "requests/<int:pk>/compare/pilots/<int:bid_pk>/invite/",
        views.pilot_invite_view,
        name="request-pilot-invite",
    ),
    path(
        "requests/<int:pk>/compare/pilot-scoring/",
        views.pilot_scoring,
        name="request-pilot-scoring",
    ),
    path("requests/<int:pk>/scenarios/", views_scenarios.scenarios, name="request-scenarios"),
    path(
        "requests/<int:pk>/scenarios/export.xlsx",
        views_scenarios.scenarios_xlsx,
        name="request-scenarios-xlsx",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/edit/",
        views_scenarios.scenario_edit,
        name="request-scenario-edit",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/solve/",
        views_scenarios.scenario_solve,
        name="request-scenario-solve",
    ),
    path(
        "requests/<int:pk>/scenarios/<int:sid>/award/",
        views_scenarios.scenario_award_view,
        name="request-scenario-award",
    ),
]
