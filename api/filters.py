"""Pagination and django-filter filter sets for every API list."""

from __future__ import annotations

import django_filters
from rest_framework.pagination import PageNumberPagination

from acceptance.models import FailedRun, FailedRunState, Reservation, ReservationStatus
from bids.choices import BidStatus, GpuModel, RequestStatus
from bids.models import Bid, BidRevision, CapacityRequest, Invitation, Organization


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class RequestFilter(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=RequestStatus.choices)
    gpu_model = django_filters.ChoiceFilter(choices=GpuModel.choices)
    sealed = django_filters.BooleanFilter()
    title = django_filters.CharFilter(lookup_expr="icontains")
    deadline_after = django_filters.IsoDateTimeFilter(field_name="bid_deadline", lookup_expr="gte")
    deadline_before = django_filters.IsoDateTimeFilter(field_name="bid_deadline", lookup_expr="lte")

    class Meta:
        model = CapacityRequest
        fields = ["status", "gpu_model", "sealed", "title"]


REQUEST_ORDERING = ["created_at", "bid_deadline", "title", "status", "reservation_start"]


class BidFilter(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=BidStatus.choices)
    request = django_filters.NumberFilter(field_name="request_id")
    region = django_filters.CharFilter()

    class Meta:
        model = Bid
        fields = ["status", "request", "region"]


BID_ORDERING = ["updated_at", "created_at", "price_per_gpu_hour", "status"]


class RequestBidFilter(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=BidStatus.choices)

    class Meta:
        model = Bid
        fields = ["status"]


REQUEST_BID_ORDERING = ["provider__name", "updated_at", "latest_revision_number"]


class RevisionFilter(django_filters.FilterSet):
    submitted_after = django_filters.IsoDateTimeFilter(field_name="submitted_at", lookup_expr="gte")

    class Meta:
        model = BidRevision
        fields = ["number"]


REVISION_ORDERING = ["number", "submitted_at"]


class InvitationFilter(django_filters.FilterSet):
    provider = django_filters.CharFilter(field_name="provider__slug")

    class Meta:
        model = Invitation
        fields = ["provider"]


INVITATION_ORDERING = ["provider__name", "invited_at"]


class ProviderFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Organization
        fields = ["name"]


PROVIDER_ORDERING = ["name", "created_at"]


class ReservationFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=ReservationStatus.choices)
    request = django_filters.NumberFilter(field_name="request_id")

    class Meta:
        model = Reservation
        fields = ["status", "request"]


RESERVATION_ORDERING = ["awarded_at", "status"]


class FailedRunFilter(django_filters.FilterSet):
    reservation = django_filters.NumberFilter(field_name="reservation_id")
    state = django_filters.ChoiceFilter(choices=FailedRunState.choices)

    class Meta:
        model = FailedRun
        fields = ["reservation", "state"]


FAILED_RUN_ORDERING = ["uploaded_at", "analysed_at", "state"]
