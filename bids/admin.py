from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from bids.models import (
    Addendum,
    AddendumAcknowledgement,
    Approval,
    ApprovalPolicy,
    ApprovalRequest,
    Bid,
    BidAttachment,
    BidRevision,
    CapacityRequest,
    Delegation,
    DetailsGate,
    GateAcceptance,
    Invitation,
    Lot,
    Question,
    SupplierInvitation,
)
from core.admin_tools import RecordAdmin


class InvitationInline(admin.TabularInline):
    model = Invitation
    extra = 0
    autocomplete_fields = ["provider"]


@admin.register(CapacityRequest)
class CapacityRequestAdmin(admin.ModelAdmin):
    list_display = ["title", "buyer", "status", "gpu_model", "gpu_count", "bid_deadline", "sealed"]
    list_filter = ["status", "gpu_model", "sealed"]
    list_select_related = ["buyer"]
    search_fields = ["title", "buyer__name"]
    inlines = [InvitationInline]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["request", "provider", "invited_at"]
    list_select_related = ["request", "provider"]


class RevisionInline(admin.TabularInline):
    model = BidRevision
    extra = 0
    fields = ("number", "submitted_at", "submitted_by", "price_per_gpu_hour")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Bid)
class BidAdmin(admin.ModelAdmin):
    list_display = ["request", "provider", "status", "latest_revision_number", "updated_at"]
    list_filter = ["status"]
    list_select_related = ["request", "provider"]
    search_fields = ["request__title", "provider__name"]
    inlines = [RevisionInline]


@admin.register(BidRevision)
class BidRevisionAdmin(admin.ModelAdmin):
    """Read-only: a submitted revision is the record of what was offered."""

    list_display = ["bid", "number", "submitted_at", "price_per_gpu_hour"]
    list_select_related = ["bid__request", "bid__provider"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Addendum)
class AddendumAdmin(RecordAdmin):
    """Read-only: a published addendum is part of what providers bid on."""

    list_display = ["request", "number", "title", "published_by", "published_at"]
    list_select_related = ["request", "published_by"]


@admin.register(BidAttachment)
class BidAttachmentAdmin(RecordAdmin):
    """Read-only: a file a submitted revision carried is part of what the buyer was offered."""

    list_display = ["original_name", "bid", "content_type", "size", "first_revision", "uploaded_at"]
    list_select_related = ["bid__provider", "bid__request"]
    search_fields = ["original_name", "sha256"]


@admin.register(Question)
class QuestionAdmin(RecordAdmin):
    """Read-only: an invitee's question and the buyer's answer are on the record (a published
    one was told to every invitee, without the asker's name)."""

    list_display = ["request", "number", "provider", "state", "asked_at", "answered_at"]
    list_filter = ["state"]
    list_select_related = ["request", "provider"]
    search_fields = ["text", "answer"]


@admin.register(AddendumAcknowledgement)
class AddendumAcknowledgementAdmin(RecordAdmin):
    """Read-only: a provider's acknowledgement lets its next submit through."""

    list_display = ["addendum", "provider", "acknowledged_by", "acknowledged_at"]
    list_select_related = ["addendum__request", "provider", "acknowledged_by"]


@admin.register(Lot)
class LotAdmin(RecordAdmin):
    """Edited by the buyer's team on the request's lot page while a draft (audited there)."""

    list_display = ["request", "number", "name", "nodes", "gpus_per_node", "region"]
    list_select_related = ["request"]
    search_fields = ["name", "request__title"]


class ApprovalInline(admin.TabularInline):
    model = Approval
    extra = 0
    fields = ("approver", "on_behalf_of", "at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ApprovalPolicy)
class ApprovalPolicyAdmin(RecordAdmin):
    """Set by the organisation's administrators on its policy page (audited there)."""

    list_display = [
        "organization", "publish_one_over", "publish_two_over", "award_one_over",
        "award_two_over", "updated_at",
    ]  # fmt: skip
    list_select_related = ["organization"]


@admin.register(Delegation)
class DelegationAdmin(RecordAdmin):
    """Recorded on the policy page by the approver or an administrator (audited there)."""

    list_display = ["organization", "delegator", "delegate", "starts_on", "ends_on"]
    list_select_related = ["organization", "delegator", "delegate"]


@admin.register(ApprovalRequest)
class ApprovalRequestAdmin(RecordAdmin):
    """Read-only: who asked, who approved (and for whom) is the record of the decision."""

    list_display = ["request", "action", "bid", "value", "needed", "status", "asked_by", "asked_at"]
    list_filter = ["action", "status"]
    list_select_related = ["request", "bid__provider", "asked_by"]
    inlines = [ApprovalInline]


@admin.register(Approval)
class ApprovalAdmin(RecordAdmin):
    """Read-only: one approval, by the approver, for whom they stood in if anyone."""

    list_display = ["approval_request", "approver", "on_behalf_of", "at"]
    list_select_related = ["approval_request__request", "approver", "on_behalf_of"]


@admin.register(DetailsGate)
class DetailsGateAdmin(RecordAdmin):
    """Read-only: what invitees accepted is bound to its hash."""

    list_display = ["request", "original_name", "nda_sha256", "updated_at"]
    list_select_related = ["request"]


@admin.register(GateAcceptance)
class GateAcceptanceAdmin(RecordAdmin):
    """Read-only: an acceptance is a record on the audit chain."""

    list_display = ["request", "provider", "accepted_by", "accepted_at", "nda_sha256"]
    list_select_related = ["request", "provider", "accepted_by"]


@admin.register(SupplierInvitation)
class SupplierInvitationAdmin(admin.ModelAdmin):
    list_display = ["email", "request", "created_at", "expires_at", "used_at", "provider"]
    list_select_related = ["request", "provider"]
    search_fields = ["email"]
