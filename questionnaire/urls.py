from django.urls import path

from questionnaire import views

app_name = "questionnaire"

urlpatterns = [
    path("bids/<int:pk>/questionnaire/", views.answers_edit, name="answers-edit"),
    path("bids/<int:pk>/questionnaire/export/", views.answers_export, name="answers-export"),
    path("bids/<int:pk>/questionnaire/import/", views.answers_import, name="answers-import"),
    path("bids/<int:pk>/questionnaire/copy/", views.answers_copy, name="answers-copy"),
    path(
        "bids/<int:pk>/questionnaire/conflicts/keep/", views.conflicts_keep, name="conflicts-keep"
    ),
    path("bids/<int:pk>/questionnaire/changes/", views.revision_diff, name="revision-diff"),
    path("requests/<int:pk>/questionnaire/", views.set_edit, name="set-edit"),
    path("requests/<int:pk>/questionnaire/attach/", views.set_attach, name="set-attach"),
    path("requests/<int:pk>/questionnaire/answers/", views.answers_matrix, name="matrix"),
]
