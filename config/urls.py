from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from bids.views.home import home
from config.views import healthz
from sso.views import SignInView

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
    # The API first: Django tries patterns in order, and the pages' 200-odd patterns cost an API
    # call about half a millisecond before its own. No page path starts with api/ or account/.
    # ops before api: its last route answers every other /api/ path with a JSON 404, and ops
    # serves /api/v1/organization/export/.
    path("", include("ops.urls")),
    path("", include("api.urls")),
    path("accounts/login/", SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("orgs.urls")),
    path("", include("suppliers.urls")),
    path("", include("signing.urls")),
    path("", include("sso.urls")),
    path("", include("bids.urls")),
    path("", include("questionnaire.urls")),
    path("", include("contracts.urls")),
    path("", include("acceptance.urls.fixtures")),
    path("", include("acceptance.urls.burnin")),
    path("", include("acceptance.urls.pilot")),
    path("", include("incidents.urls")),
    path("", include("delivery.urls")),
    path("", include("inference.urls")),
    path("", include("billing.urls")),
    path("", include("evaluation.urls")),
    path("", include("scorecards.urls")),
    path("", include("observed.urls")),
    path("", include("annexes.urls")),
    path("", include("audit.urls")),
    path("", include("notices.urls")),
    path("", include("webhooks.urls")),
]

# API paths that match no route still answer in the API's JSON error shape.
handler400 = "api.errors.bad_request"
handler404 = "api.errors.not_found"
