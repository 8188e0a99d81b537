from django.urls import path

from webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("org/webhooks/", views.endpoint_list, name="list"),
    path("org/webhooks/<uuid:public_id>/", views.endpoint_detail, name="detail"),
    path("org/webhooks/<uuid:public_id>/rotate/", views.endpoint_rotate, name="rotate"),
    path("org/webhooks/<uuid:public_id>/delete/", views.endpoint_delete, name="delete"),
    path(
        "org/webhooks/deliveries/<uuid:public_id>/redeliver/",
        views.delivery_redeliver,
        name="redeliver",
    ),
]
