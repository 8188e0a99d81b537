"""A request's lots by API: the lots (api.views.lots), a lot's own fixture and terms
(api.views.lot_parts) and a bid's acknowledgement of them (api.views.lot_acks)."""

from __future__ import annotations

from django.urls import path

from api.views import lot_acks, lot_parts, lots

LOT_ROUTES = [
    path("requests/<int:pk>/lots/", lots.LotListView.as_view(), name="request-lots"),
    path("requests/<int:pk>/lots/<int:number>/", lots.LotDetailView.as_view(), name="request-lot"),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/",
        lot_parts.LotFixtureView.as_view(),
        name="request-lot-fixture",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/bundle/",
        lot_parts.LotFixtureBundleView.as_view(),
        name="request-lot-fixture-bundle",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/terms/",
        lot_parts.LotTermsView.as_view(),
        name="request-lot-terms",
    ),
    path(
        "bids/<int:pk>/lots/<int:number>/acknowledgement/",
        lot_acks.LotAcknowledgementView.as_view(),
        name="bid-lot-acknowledgement",
    ),
]
