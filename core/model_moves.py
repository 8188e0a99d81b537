"""Moving a model to another app without touching its table or rows.

The moved model keeps its `db_table`; both apps' migrations change only Django's state
(`SeparateDatabaseAndState`). Content types follow the model, so permissions granted on it and
admin history stay attached.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations


def content_types_moved(*, old_app: str, new_app: str, models: list[str]) -> Any:
    names = [m.lower() for m in models]

    def relabel(src: str, dst: str) -> Any:
        def run(apps: Any, schema_editor: Any) -> None:
            ContentType = apps.get_model("contenttypes", "ContentType")
            for name in names:
                if ContentType.objects.filter(app_label=dst, model=name).exists():
                    continue  # already there (a database created after the move)
                ContentType.objects.filter(app_label=src, model=name).update(app_label=dst)

        return run

    return migrations.RunPython(relabel(old_app, new_app), relabel(new_app, old_app))
