from django.urls import path

from notices import views

app_name = "notices"

urlpatterns = [
    path("notices/", views.notice_list, name="list"),
    path("notices/read-all/", views.notice_read_all, name="read-all"),
    path("notices/preferences/", views.preferences, name="preferences"),
    path("notices/<uuid:public_id>/", views.notice_open, name="open"),
]
