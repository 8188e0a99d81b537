"""A page that reads a gated request's details sends the invitee to the request's gate.

Every details read goes through `bids.selectors.request_get_for_org`, which raises
`DetailsGated` for an invitee that has not accepted the gate; the API answers it as a 409
(it is a `Conflict`), and this turns it into a redirect for the pages and downloads."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from bids.gate_selectors import DetailsGated


class DetailsGateMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DetailsGated):
            return None
        messages.info(request, exception.messages[0])
        return HttpResponseRedirect(reverse("bids:request-detail", args=[exception.request_id]))
