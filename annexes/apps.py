from django.apps import AppConfig


class AnnexesConfig(AppConfig):
    name = "annexes"
    verbose_name = "Contract annexes"
