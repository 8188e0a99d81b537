"""What a reservation's workload observed and served, by API: the observed files and their
figures (api.views.observed), the served-responses files and theirs (api.views.inference)."""

from __future__ import annotations

from django.urls import path

from api.views import inference, observed

OUTCOME_ROUTES = [
    path(
        "reservations/<int:pk>/observed/",
        observed.ReservationObservedView.as_view(),
        name="reservation-observed",
    ),
    path(
        "reservations/<int:pk>/observed/figures/",
        observed.ObservedFiguresView.as_view(),
        name="reservation-observed-figures",
    ),
    path(
        "reservations/<int:pk>/observed/result/",
        observed.ObservedResultView.as_view(),
        name="reservation-observed-result",
    ),
    path("observed/<int:pk>/", observed.ObservedDetailView.as_view(), name="observed-detail"),
    path("observed/<int:pk>/retry/", observed.ObservedRetryView.as_view(), name="observed-retry"),
    path(
        "reservations/<int:pk>/inference/",
        inference.ReservationServedView.as_view(),
        name="reservation-served",
    ),
    path(
        "reservations/<int:pk>/inference/figures/",
        inference.InferenceFiguresView.as_view(),
        name="reservation-inference-figures",
    ),
    path("served/<int:pk>/", inference.ServedDetailView.as_view(), name="served-detail"),
    path("served/<int:pk>/retry/", inference.ServedRetryView.as_view(), name="served-retry"),
]
