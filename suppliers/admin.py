from django.contrib import admin

from suppliers.models import ComplianceDocument, ExpiryReminder, SupplierProfile


@admin.register(SupplierProfile)
class SupplierProfileAdmin(admin.ModelAdmin):
    list_display = ["legal_name", "organization", "contact_email", "updated_at"]


@admin.register(ComplianceDocument)
class ComplianceDocumentAdmin(admin.ModelAdmin):
    list_display = ["organization", "doc_type", "issuer", "issued_on", "expires_on"]
    list_filter = ["doc_type"]


@admin.register(ExpiryReminder)
class ExpiryReminderAdmin(admin.ModelAdmin):
    list_display = ["document", "days_before", "sent_at"]
