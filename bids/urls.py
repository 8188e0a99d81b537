from django.urls import path

from bids.views import bids, compare, home, requests

app_name = "bids"

urlpatterns = [
    path("org/switch/", home.switch_org, name="switch-org"),
    path("requests/", requests.request_list, name="request-list"),
    path("requests/new/", requests.request_create, name="request-create"),
    path("requests/<int:pk>/", requests.request_detail, name="request-detail"),
    path("requests/<int:pk>/edit/", requests.request_edit, name="request-edit"),
    path("requests/<int:pk>/publish/", requests.request_publish, name="request-publish"),
    path("requests/<int:pk>/close/", requests.request_close, name="request-close"),
    path("requests/<int:pk>/cancel/", requests.request_cancel, name="request-cancel"),
    path("requests/<int:pk>/invite/", requests.request_invite, name="request-invite"),
    path("requests/<int:pk>/bid/", bids.bid_start, name="bid-start"),
    path("requests/<int:pk>/compare/", compare.compare, name="request-compare"),
    path(
        "requests/<int:pk>/compare/status/", compare.compare_status, name="request-compare-status"
    ),
    path(
        "requests/<int:pk>/compare/rescore/",
        compare.compare_rescore,
        name="request-compare-rescore",
    ),
    path("requests/<int:pk>/compare/export.csv", compare.compare_csv, name="request-compare-csv"),
    path(
        "requests/<int:pk>/compare/export.xlsx", compare.compare_xlsx, name="request-compare-xlsx"
    ),
    path("requests/<int:pk>/weights/", compare.request_weights, name="request-weights"),
    path("inbox/", requests.inbox, name="inbox"),
    path("bids/<int:pk>/", bids.bid_detail, name="bid-detail"),
    path("bids/<int:pk>/edit/", bids.bid_edit, name="bid-edit"),
    path("bids/<int:pk>/submit/", bids.bid_submit, name="bid-submit"),
    path("bids/<int:pk>/withdraw/", bids.bid_withdraw, name="bid-withdraw"),
    path("bids/<int:pk>/revisions/<int:number>/", bids.revision_detail, name="revision-detail"),
]
