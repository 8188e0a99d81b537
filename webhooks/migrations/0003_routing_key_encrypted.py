"""PagerDuty routing keys move from plain text to a Fernet token under SIGNING_KEY, like the
endpoints' HMAC secrets; the plain column is dropped once every key is encrypted."""

from django.db import migrations, models

from core import secrets


def encrypt_routing_keys(apps, schema_editor):
    Endpoint = apps.get_model("webhooks", "Endpoint")
    for endpoint in Endpoint.objects.exclude(routing_key=""):
        endpoint.routing_key_token = secrets.encrypt(endpoint.routing_key.encode())
        endpoint.save(update_fields=["routing_key_token"])


def decrypt_routing_keys(apps, schema_editor):
    Endpoint = apps.get_model("webhooks", "Endpoint")
    for endpoint in Endpoint.objects.exclude(routing_key_token=None):
        what = f"the routing key of webhook endpoint {endpoint.pk}"
        endpoint.routing_key = secrets.decrypt(endpoint.routing_key_token, what=what).decode()
        endpoint.save(update_fields=["routing_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0002_event_types_of_every_notice"),
    ]

    operations = [
        migrations.AddField(
            model_name="endpoint",
            name="routing_key_token",
            field=models.BinaryField(blank=True, null=True),
        ),
        migrations.RunPython(encrypt_routing_keys, decrypt_routing_keys),
        migrations.RemoveField(model_name="endpoint", name="routing_key"),
    ]
