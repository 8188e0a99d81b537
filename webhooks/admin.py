from django.contrib import admin

from webhooks.models import Attempt, Delivery, Endpoint


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ("organization", "url", "payload_format", "active", "created_at")
    list_filter = ("payload_format", "active")
    # The secrets and the routing key are tokens encrypted with SIGNING_KEY: never shown.
    exclude = ("secret_token", "previous_secret_token", "routing_key_token")


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    readonly_fields = ("number", "started_at", "status_code", "latency_ms", "error", "succeeded")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("public_id", "endpoint", "state", "attempts", "next_attempt_at")
    list_filter = ("state",)
    inlines = [AttemptInline]
