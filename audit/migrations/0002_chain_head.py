from typing import Any

from django.db import migrations


def create_head(apps: Any, schema_editor: Any) -> None:
    # The row appenders lock; `audit_record` also creates it should a flush have removed it.
    apps.get_model("audit", "AuditHead").objects.get_or_create(pk=1)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(create_head, migrations.RunPython.noop)]
