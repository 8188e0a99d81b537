"""Pagination and django-filter filter sets for every API list."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import exceptions
from rest_framework.filters import OrderingFilter
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from acceptance.models import Evidence, EvidenceState, Pilot, Reservation, ReservationStatus
from bids.choices import BidStatus, GpuModel, RequestStatus
from bids.models import Bid, BidRevision, CapacityRequest, Invitation
from incidents.models import (
    FailedRun,
    FailedRunState,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    Severity,
)
from notices.choices import Event
from notices.models import Notice
from orgs.models import Organization

OUT_OF_RANGE = "This time falls outside the years 1 to 9999 in UTC."
MAX_PAGE = 1_000_000_000
MAX_ID = 2_147_483_647  # PostgreSQL's integer
# What django-filter's BooleanWidget reads as a boolean.
BOOLEAN_WORDS = frozenset({"true", "false", "1", "0"})


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 time compared in UTC. Python reads offsets up to ±23:59, PostgreSQL only to
    ±15:59: `+16:00` would otherwise reach the database as given and fail there."""

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        if isinstance(value, datetime) and value.tzinfo is not None:
            try:
                value = value.astimezone(UTC)
            except OverflowError:  # 9999-12-31T23:59:59-23:59 is in the year 10000 in UTC
                names = [n for n, f in getattr(self.parent, "filters", {}).items() if f is self]
                raise exceptions.ValidationError(
                    {(names or [self.field_name])[0]: [OUT_OF_RANGE]}
                ) from None
        return super().filter(qs, value)


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(django_filters.NumberFilter):
    """An object id, or a number counted from 1 (a revision's): a whole number a database
    integer can hold (anything else is a 400 naming it)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class StrictFilterBackend(DjangoFilterBackend):
    """An empty value for a filter that is not free text (`?deadline_before=`, `?sealed=`) is a
    400 naming the parameter: django-filter would drop it and list everything unfiltered."""

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> Any:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None and not (
            request.query_params.keys() & filterset_class.base_filters.keys()
        ):
            # No filter asked for: building and validating the filter set's form changes nothing
            # (each filter passes an absent value through) and cost more than the rows' query.
            return queryset
        return super().filter_queryset(request, queryset, view)

    def get_filterset(self, request: Request, queryset: QuerySet[Any], view: Any) -> Any:
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            empty = [
                name
                for name, declared in filterset.filters.items()
                if request.query_params.get(name, None) == ""
                and not isinstance(declared, django_filters.CharFilter)
            ]
            if empty:
                raise exceptions.ValidationError(
                    {name: ["Give a value, or leave the parameter out."] for name in empty}
                )
            # django-filter reads any other word (`?unread=null`) as "not asked" and lists
            # everything: a script that misspelt `true` must learn it.
            unread = [
                name
                for name, declared in filterset.filters.items()
                if isinstance(declared, django_filters.BooleanFilter)
                and name in request.query_params
                and request.query_params[name].lower() not in BOOLEAN_WORDS
            ]
            if unread:
                raise exceptions.ValidationError(
                    {name: ["Give true or false, or leave the parameter out."] for name in unread}
                )
        return filterset


class Pagination(PageNumberPagination):
    """Pages are numbered from 1 and hold 1 to 200 rows. A `page` or `page_size` that is not
    such a number is a 400 naming the parameter, never a silent default: a script that asked
    for `page_size=0` must learn that it did not get what it asked for."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        # A view that already counted the rows it lists (for its ETag) says so: not counted twice.
        self.counted_rows: int | None = getattr(view, "counted_rows", None)
        page_number(request, self.page_query_param)
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request: Request) -> int:
        wanted = request.query_params.get(self.page_size_query_param)
        if wanted is None:
            return self.page_size
        size = _positive(wanted)
        if size is None or size > self.max_page_size:
            raise exceptions.ValidationError(
                {
                    self.page_size_query_param: [
                        f"Give a whole number of rows per page from 1 to {self.max_page_size}."
                    ]
                }
            )
        return size

    def get_page_number(self, request: Request, paginator: Paginator) -> Any:
        if self.counted_rows is not None:
            paginator.__dict__["count"] = self.counted_rows  # Paginator.count: a cached_property
        return super().get_page_number(request, paginator)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return PAGE_PARAMETERS


PAGE_PARAMETERS: list[dict[str, Any]] = [
    {
        "name": "page",
        "required": False,
        "in": "query",
        "description": "A page number, from 1; past the last page is a 404.",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
    },
    {
        "name": "page_size",
        "required": False,
        "in": "query",
        "description": "Results per page, 1 to 200 (50 when not given).",
        "schema": {"type": "integer", "minimum": 1, "maximum": 200},
    },
]


def _positive(value: str) -> int | None:
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 10:
        return None
    number = int(text)
    return number if 1 <= number <= MAX_PAGE else None


def page_number(request: Request, name: str = "page") -> int:
    """`?page=` as a number from 1 (1 when not given); anything else is a 400 naming it."""
    wanted = request.query_params.get(name)
    if wanted is None:
        return 1
    number = _positive(wanted)
    if number is None:
        raise exceptions.ValidationError(
            {name: ["Pages are numbered from 1; give a whole number."]}
        )
    return number


PAGE = OpenApiParameter(
    "page",
    {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
    description="A page number, from 1 (past the last page: the last page).",
)


class StrictOrderingFilter(OrderingFilter):
    """`?ordering=` with a name the list does not offer is a 400 naming the allowed ones;
    DRF's own filter drops it silently and the script never learns its order was ignored.
    The schema states the same list: an array of the names (each also with a leading `-`),
    comma-separated (`style: form, explode: false`)."""

    def _allowed(self, view: Any, queryset: QuerySet[Any] | None = None) -> list[str]:
        if queryset is None:  # schema generation: the view's fake queryset names the model
            try:
                queryset = view.get_queryset()
            except Exception:
                return [
                    f if isinstance(f, str) else f[0] for f in getattr(view, "ordering_fields", [])
                ]
        return [item[0] for item in self.get_valid_fields(queryset, view, {})]

    def get_ordering(self, request: Request, queryset: QuerySet[Any], view: Any) -> Any:
        params = request.query_params.get(self.ordering_param)
        if params is None:
            return self.get_default_ordering(view)
        terms = [term.strip() for term in params.split(",")]
        allowed = self._allowed(view, queryset)
        unknown = [t for t in terms if t.removeprefix("-") not in allowed]
        if unknown:
            names = ", ".join(allowed)
            shown = ", ".join(repr(t) for t in unknown)
            raise exceptions.ValidationError(
                {
                    self.ordering_param: [
                        f"Cannot order by {shown}. Order by one of: {names} (prefix - for "
                        "descending, comma-separate several)."
                    ]
                }
            )
        return terms

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        allowed = self._allowed(view)
        if not allowed:
            return []
        names = ", ".join(allowed)
        return [
            {
                "name": self.ordering_param,
                "required": False,
                "in": "query",
                "description": (
                    f"Order by one of: {names}; prefix - for descending, comma-separate "
                    "several. Any other name is refused with 400."
                ),
                "schema": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "string",
                        "enum": [f"{sign}{name}" for name in allowed for sign in ("", "-")],
                    },
                },
                "style": "form",
                "explode": False,
            }
        ]


class RequestFilter(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=RequestStatus.choices)
    gpu_model = django_filters.ChoiceFilter(choices=GpuModel.choices)
    sealed = django_filters.BooleanFilter()
    title = django_filters.CharFilter(lookup_expr="icontains")
    deadline_after = UtcDateTimeFilter(field_name="bid_deadline", lookup_expr="gte")
    deadline_before = UtcDateTimeFilter(field_name="bid_deadline", lookup_expr="lte")

    class Meta:
        model = CapacityRequest
        fields = ["status", "gpu_model", "sealed", "title"]


REQUEST_ORDERING = ["created_at", "bid_deadline", "title", "status", "reservation_start"]


class BidFilter(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=BidStatus.choices)
    request = IdFilter(field_name="request_id")
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
    # django-filter's own filter for an integer column reads `1.5` and `-3e-182` as numbers.
    number = IdFilter(help_text="A revision number, from 1.")
    submitted_after = UtcDateTimeFilter(field_name="submitted_at", lookup_expr="gte")

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
    request = IdFilter(field_name="request_id")

    class Meta:
        model = Reservation
        fields = ["status", "request"]


RESERVATION_ORDERING = ["awarded_at", "status"]


class PilotFilter(django_filters.FilterSet):
    request = IdFilter(field_name="bid__request_id")

    class Meta:
        model = Pilot
        fields = ["request"]


PILOT_ORDERING = ["invited_at", "starts_on"]


class FailedRunFilter(django_filters.FilterSet):
    reservation = IdFilter(field_name="reservation_id")
    state = django_filters.ChoiceFilter(choices=FailedRunState.choices)

    class Meta:
        model = FailedRun
        fields = ["reservation", "state"]


FAILED_RUN_ORDERING = ["uploaded_at", "analysed_at", "state"]


class EvidenceFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=EvidenceState.choices)
    kind = django_filters.CharFilter()
    node = django_filters.CharFilter()

    class Meta:
        model = Evidence
        fields = ["state", "kind", "node"]


EVIDENCE_ORDERING = ["uploaded_at", "original_name", "state", "node"]


class IncidentFilter(django_filters.FilterSet):
    severity = django_filters.ChoiceFilter(choices=Severity.choices)
    open = django_filters.BooleanFilter(field_name="closed_at", lookup_expr="isnull")

    class Meta:
        model = Incident
        fields = ["severity", "open"]


INCIDENT_ORDERING = ["opened_at", "severity", "closed_at"]


class IncidentEvidenceFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=IncidentEvidenceKind.choices)
    ok = django_filters.BooleanFilter()

    class Meta:
        model = IncidentEvidence
        fields = ["kind", "ok"]


INCIDENT_EVIDENCE_ORDERING = ["uploaded_at", "kind", "original_name"]


class NoticeFilter(django_filters.FilterSet):
    unread = django_filters.BooleanFilter(field_name="read_at", lookup_expr="isnull")
    event = django_filters.ChoiceFilter(choices=Event.choices)

    class Meta:
        model = Notice
        fields = ["unread", "event"]


NOTICE_ORDERING = ["created_at"]
