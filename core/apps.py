from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        # Connects the Celery task signals in every process, web and worker alike.
        from core import metrics  # noqa: F401
        from core.jobs import register_reaper
        from core.limits import install_length_messages
        from core.orphans import sweep_temporary_uploads

        # Beat runs the reapers: a worker killed mid-request leaves its temporary upload.
        register_reaper("temporary uploads", sweep_temporary_uploads)
        install_length_messages()
