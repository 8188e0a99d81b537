from django.apps import AppConfig


class BidsConfig(AppConfig):
    name = "bids"
    verbose_name = "Requests and bids"
