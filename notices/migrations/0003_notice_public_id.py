"""Notices get a public UUID, filled for the rows already stored (the Django pattern for a
unique field on existing rows: add it nullable, fill each row, then make it unique)."""

import uuid

from django.db import migrations, models


def fill_public_ids(apps, schema_editor):
    Notice = apps.get_model("notices", "Notice")
    batch = []
    for notice in Notice.objects.only("pk").iterator(chunk_size=2000):
        notice.public_id = uuid.uuid4()
        batch.append(notice)
        if len(batch) == 2000:
            Notice.objects.bulk_update(batch, ["public_id"])
            batch = []
    Notice.objects.bulk_update(batch, ["public_id"])


class Migration(migrations.Migration):
    dependencies = [
        ("notices", "0002_membership_event"),
    ]

    operations = [
        migrations.AddField(
            model_name="notice",
            name="public_id",
            field=models.UUIDField(editable=False, null=True),
        ),
        migrations.RunPython(fill_public_ids, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="notice",
            name="public_id",
            field=models.UUIDField(default=uuid.uuid4, editable=False, unique=True),
        ),
    ]
