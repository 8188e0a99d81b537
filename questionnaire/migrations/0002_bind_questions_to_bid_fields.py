from django.db import migrations, models

# Copied, not imported: a migration must not change when questionnaire.facts does.
# (question key, answer type) → the bid field that holds the answer.
BOUND = {
    ("spares.count", "integer"): "spares_count",
    ("replacement.time", "duration"): "node_replacement_hours",
    ("coverage.hours", "enum"): "coverage",
    ("spares.domain", "enum"): "spares_location",
    ("health.auto_drain", "yesno"): "health_checks_auto_drain",
}


def bind_existing(apps, schema_editor):
    """Every existing set's copies of the default questions read the bid field from now on;
    answers stored for them before are ignored in favour of the field."""
    Question = apps.get_model("questionnaire", "Question")
    for (key, answer_type), field in BOUND.items():
        Question.objects.filter(key=key, answer_type=answer_type).update(bound_to=field)


class Migration(migrations.Migration):
    dependencies = [
        ("questionnaire", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="bound_to",
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.RunPython(bind_existing, migrations.RunPython.noop),
    ]
