from django.contrib import admin

from observed.models import ObservedUpload, ResultDefinition


@admin.register(ObservedUpload)
class ObservedUploadAdmin(admin.ModelAdmin):
    list_display = ("original_name", "reservation", "kind", "party", "state", "uploaded_at")
    list_filter = ("kind", "state")
    readonly_fields = ("sha256", "size", "parsed", "error")


@admin.register(ResultDefinition)
class ResultDefinitionAdmin(admin.ModelAdmin):
    list_display = ("reservation", "unit", "expected_per_gpu_hour", "set_at")
