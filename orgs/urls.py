from django.urls import path

from orgs import views

app_name = "orgs"

urlpatterns = [
    path("org/switch/", views.switch_org, name="switch-org"),
    path("org/members/", views.member_list, name="members"),
    path("org/members/<int:pk>/role/", views.member_role, name="member-role"),
    path("org/members/<int:pk>/remove/", views.member_remove, name="member-remove"),
]
