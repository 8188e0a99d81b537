from django.contrib import admin

from core.admin_tools import RecordAdmin
from core.models import WaitingTask


@admin.register(WaitingTask)
class WaitingTaskAdmin(RecordAdmin):
    """What waits for the broker: staff see it; the beat sweep sends it."""

    list_display = ["pk", "task", "what", "created_at", "tried_at", "tries"]
