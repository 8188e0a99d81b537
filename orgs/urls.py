from django.urls import path

from orgs import views

app_name = "orgs"

urlpatterns = [
    path("org/switch/", views.switch_org, name="switch-org"),
    path("org/members/", views.member_list, name="members"),
    path("org/members/<int:pk>/role/", views.member_role, name="member-role"),
    path("org/members/<int:pk>/remove/", views.member_remove, name="member-remove"),
    path(
        "org/invitations/<int:pk>/withdraw/",
        views.invitation_withdraw,
        name="invitation-withdraw",
    ),
    path("org/invitations/", views.my_invitations, name="invitations"),
    path(
        "org/invitations/<int:pk>/accept/",
        views.invitation_answer,
        {"answer": "accept"},
        name="invitation-accept",
    ),
    path(
        "org/invitations/<int:pk>/decline/",
        views.invitation_answer,
        {"answer": "decline"},
        name="invitation-decline",
    ),
]
