from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.db import connections
        from django.db.backends.signals import connection_created

        from core import generation

        # Every connection reports its writes to the data generation (core/generation.py).
        connection_created.connect(generation.watch, dispatch_uid="core.generation.watch")
        for connection in connections.all(initialized_only=True):
            generation.watch(connection)
