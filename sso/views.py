"""Signing in through an organisation's identity provider (start, callback) with
mozilla-django-oidc's views, fed the organisation's connection; and its administrators'
settings page."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import requests
from django.contrib import messages
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import PermissionDenied, SuspiciousOperation, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST
from django.views.generic import View
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from core.secrets import SecretKeyError
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, org_required, user_of
from orgs.middleware import SESSION_KEY
from orgs.models import Organization
from orgs.selectors import is_member_admin
from orgs.services import choose_organization
from sso import scim, selectors, services
from sso.backends import REQUEST_ATTRIBUTE
from sso.forms import ConnectionForm, SignInForm
from sso.models import OidcConnection

STATES = "oidc_states"  # the library's session key: state -> nonce, PKCE verifier


class SignInView(LoginView):
    """Django's password sign-in, with the way to sign in through one's organisation beside it."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        context.setdefault("sso_form", SignInForm())
        return context


class StartView(OIDCAuthenticationRequestView):
    """Sends the person to the identity provider of the organisation their address or the
    organisation's short name leads to; the state it sends along names that connection.

    The address comes in a POST body, never the query string: a URL with an e-mail address in
    it would land in access logs, browser history and the provider's Referer headers."""

    http_method_names = ["get", "post"]

    def __init__(self, **kwargs: Any) -> None:
        View.__init__(self, **kwargs)  # the provider comes with the request, not settings

    def get(self, request: HttpRequest) -> HttpResponse:
        # An old bookmark or a hand-made link: back to the sign-in form, dropping the query.
        target = _safe_next(request, request.GET.get("next", ""))
        query = "?" + urlencode({"next": target}) if target else ""
        return redirect(reverse("login") + query)

    def post(self, request: HttpRequest) -> HttpResponse:
        form = SignInForm(request.POST)
        target = request.POST.get("next", "")
        connection = (
            selectors.connection_for_sign_in(who=form.cleaned_data["who"])
            if form.is_valid()
            else None
        )
        if connection is None:
            if form.is_valid():
                form.add_error(
                    "who",
                    "No organisation signs in through its identity provider with that address "
                    "or name. Check it, or sign in with your username and password.",
                )
            context = {"form": AuthenticationForm(request), "sso_form": form, "next": target}
            return render(request, "registration/login.html", context, status=400)
        self.OIDC_OP_AUTH_ENDPOINT = connection.authorization_endpoint
        self.OIDC_RP_CLIENT_ID = connection.client_id
        response: HttpResponse = super().get(request)
        state = parse_qs(urlsplit(response["Location"]).query)["state"][0]
        request.session[STATES][state]["connection"] = connection.pk
        # The library reads `next` from the query string; here it came in the body.
        request.session["oidc_login_next"] = _safe_next(request, target) or None
        request.session.modified = True
        return response


class CallbackView(OIDCAuthenticationCallbackView):
    """The provider's answer: the state must be one this browser started, and names the
    connection whose client, keys and group mapping decide the sign-in."""

    def get(self, request: HttpRequest) -> HttpResponse:
        entry = request.session.get(STATES, {}).get(request.GET.get("state", ""))
        connection_pk = entry.get("connection") if isinstance(entry, dict) else None
        connection = selectors.enabled_connection(pk=connection_pk) if connection_pk else None
        if connection is None:
            return _refused(
                request,
                "This sign-in was not started in this browser, or it was already used. "
                "Start again from the sign-in page.",
                status=400,
            )
        self.connection = connection
        setattr(request, REQUEST_ATTRIBUTE, connection)
        try:
            response: HttpResponse = super().get(request)
        except services.SignInRefused as exc:
            return _refused(request, exc.message, status=403)
        except SecretKeyError as exc:
            return _refused(request, exc.messages[0], status=503)
        except (SuspiciousOperation, requests.HTTPError):
            # A forged or stale answer, or a code the provider's token endpoint refused.
            return _refused(request, self._unverified(), status=400)
        except requests.RequestException:
            host = urlsplit(connection.issuer).netloc
            return _refused(request, f"{host} could not be reached. Try again.", status=502)
        return response

    def login_success(self) -> HttpResponse:
        response: HttpResponse = super().login_success()
        org_id = self.connection.organization_id
        self.request.session[SESSION_KEY] = org_id
        choose_organization(user=self.user, org_id=org_id)
        return response

    def login_failure(self) -> HttpResponse:
        return _refused(self.request, self._unverified(), status=403)

    def _unverified(self) -> str:
        name = self.connection.organization.name
        return (
            f"The identity provider of {name} did not sign you in, or its answer could not be "
            "verified. Start again from the sign-in page."
        )


def _safe_next(request: HttpRequest, target: str) -> str:
    """`target` if it stays on this site, else nothing: no open redirect after sign-in."""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if target and safe else ""


def _refused(request: HttpRequest, message: str, *, status: int) -> HttpResponse:
    return render(request, "sso/refused.html", {"message": message}, status=status)


@sensitive_post_parameters("client_secret")
@org_required()
def settings_page(request: HttpRequest) -> HttpResponse:
    """The acting organisation's sign-in through its identity provider: its administrators
    only (the client and the group mapping are theirs to see)."""
    org = _org(request)
    user = user_of(request)
    if not is_member_admin(org=org, user=user):
        return _settings(request, org, form=None, connection=None, status=403)
    connection = selectors.connection_of(org=org)
    form = ConnectionForm(request.POST or None, org=org, connection=connection)
    if request.method == "POST" and form.is_valid():
        try:
            services.connection_save(org=org, user=user, data=form.connection_input())
        except PermissionDenied:
            return _settings(request, org, form=None, connection=None, status=403)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Sign-in through your identity provider is saved.")
            return redirect("sso:settings")
    status = 400 if form.errors else 200
    return _settings(request, org, form=form, connection=connection, status=status)


@never_cache
@org_required()
@require_POST
def scim_token(request: HttpRequest) -> HttpResponse:
    """A new SCIM token, shown once on the page itself (never through the session)."""
    org = _org(request)
    try:
        token = scim.token_generate(org=org, user=user_of(request))
    except PermissionDenied:
        return _settings(request, org, form=None, connection=None, status=403)
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("sso:settings")
    connection = selectors.connection_of(org=org)
    form = ConnectionForm(org=org, connection=connection)
    return _settings(request, org, form=form, connection=connection, status=200, token=token)


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


def _settings(
    request: HttpRequest,
    org: Organization,
    *,
    form: ConnectionForm | None,
    connection: OidcConnection | None,
    status: int,
    token: str = "",
) -> HttpResponse:
    context = {
        "org": org,
        "form": form,
        "connection": connection,
        "scim_token": token,
        # The base URL SCIM clients take; they append /Users themselves.
        "scim_url": request.build_absolute_uri(reverse("sso:scim-users").removesuffix("/Users")),
        "callback_url": request.build_absolute_uri(reverse("sso:callback")),
    }
    return render(request, "sso/settings.html", context, status=status)
