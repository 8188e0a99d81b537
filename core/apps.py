from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        # Connects the Celery task signals in every process, web and worker alike.
        from core import metrics  # noqa: F401
