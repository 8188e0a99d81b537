"""The browser page where a person creates and revokes their API tokens."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api import services
from api.forms import TokenCreateForm
from api.models import ApiToken
from bids.views.common import errors_into_form, user_of


@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    user = user_of(request)
    form = TokenCreateForm(request.POST or None)
    created: tuple[ApiToken, str] | None = None
    if request.method == "POST" and form.is_valid():
        try:
            created = services.token_create(user=user, name=form.cleaned_data["name"])
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            form = TokenCreateForm()
    context = {
        "tokens": ApiToken.objects.filter(user=user).order_by("-created_at"),
        "form": form,
        "new_token": created[0] if created else None,
        # Shown on this one response only; it is never stored.
        "new_secret": created[1] if created else None,
    }
    return render(request, "api/tokens.html", context, status=201 if created else 200)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = ApiToken.objects.filter(user=user_of(request), pk=pk).first()
    if token is None:
        raise Http404
    services.token_revoke(token=token)
    messages.success(request, f"Token “{token.name}” ({token.prefix}…) is revoked.")
    return redirect("api:token-list")
