from django.urls import path

from orgs import views

app_name = "orgs"

urlpatterns = [
    path("org/switch/", views.switch_org, name="switch-org"),
]
