from django.urls import path

from bids.views import bids, final_round, requests

app_name = "bids"

urlpatterns = [
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
    path("requests/<int:pk>/invite/", requests.request_invite, name="request-invite"),
    path("requests/<int:pk>/bid/", bids.bid_start, name="bid-start"),
    path("inbox/", requests.inbox, name="inbox"),
    path("bids/<int:pk>/", bids.bid_detail, name="bid-detail"),
    path("bids/<int:pk>/edit/", bids.bid_edit, name="bid-edit"),
    path("bids/<int:pk>/submit/", bids.bid_submit, name="bid-submit"),
    path("bids/<int:pk>/withdraw/", bids.bid_withdraw, name="bid-withdraw"),
    path("bids/<int:pk>/revisions/<int:number>/", bids.revision_detail, name="revision-detail"),
]
