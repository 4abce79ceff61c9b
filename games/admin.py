from django.contrib import admin

from .models import (
    Deal,
    Hand,
    Invite,
    LedgerEntry,
    LuckAudit,
    PlayerReport,
    ReportBucket,
    Seat,
    Table,
)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "mode", "status", "created_by", "deals_count", "updated_at")
    list_filter = ("mode", "status")
    search_fields = ("created_by__username",)


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "stake", "status", "dealt_at", "revealed_at")
    list_filter = ("status", "table__mode")
    list_select_related = ("table",)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "deal", "seat", "ledger", "amount", "balance", "created_at")
    list_filter = ("ledger",)
    list_select_related = ("deal", "seat")


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    list_display = ("id", "deal", "seat_number", "result", "skill", "luck_label")
    list_filter = ("result",)
    list_select_related = ("deal",)


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "created_by", "expires_at", "used_at", "revoked_at")
    exclude = ("token",)


@admin.register(LuckAudit)
class LuckAuditAdmin(admin.ModelAdmin):
    """Stored luck estimates re-derived by the audit; filter on "ok: No" for
    the flagged ones."""

    list_display = ("hand", "ok", "reason", "checked_at")
    list_filter = ("ok",)
    list_select_related = ("hand",)
    readonly_fields = tuple(f.name for f in LuckAudit._meta.fields)


class ReportBucketInline(admin.TabularInline):
    model = ReportBucket
    extra = 0
    readonly_fields = ("mode", "row", "day", "deals", "departures", "skill_sum")


@admin.register(PlayerReport)
class PlayerReportAdmin(admin.ModelAdmin):
    list_display = ("user", "hands", "version", "refreshed_at")
    inlines = (ReportBucketInline,)


admin.site.register(Seat)
