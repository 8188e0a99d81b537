from django.urls import path

from scorecards import views

app_name = "scorecards"

urlpatterns = [
    path("providers/<int:pk>/scorecard/", views.scorecard, name="provider-scorecard"),
    path("providers/<int:pk>/scorecard.csv", views.scorecard_csv, name="provider-scorecard-csv"),
    path("providers/<int:pk>/scorecard.xlsx", views.scorecard_xlsx, name="provider-scorecard-xlsx"),
]
