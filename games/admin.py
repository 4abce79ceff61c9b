from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

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

if TYPE_CHECKING:
    from django.contrib.admin.options import _FieldGroups


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "mode", "status", "created_by", "deals_count", "updated_at")
    list_filter = ("mode", "status")
    search_fields = ("created_by__username",)


class GameRecordAdmin(admin.ModelAdmin):
    """Deals and hands are written by ``games.services`` only (each change is a
    transition under the table's lock, and a deal's commitment binds its deck
    and secret), so the admin shows them and never edits them. Until a deal
    is revealed its secret fields are left out of every admin page, staff and
    superusers included, as the engine shows a spectator only the commitment
    (``engine.seat_view(snapshot, None)``); after the reveal they are shown."""

    secret_fields: tuple[str, ...] = ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_fields(self, request: HttpRequest, obj: Any = None) -> "_FieldGroups":
        fields: _FieldGroups = list(super().get_fields(request, obj))
        deal = obj if isinstance(obj, Deal) or obj is None else obj.deal
        if deal is None or not deal.revealed:
            fields = [name for name in fields if name not in self.secret_fields]
        return fields

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # ?deck_order__startswith=As would count an open deal in or out, card by card.
        if lookup.split(LOOKUP_SEP)[0] in self.secret_fields:
            return False
        return bool(super().lookup_allowed(lookup, value, request))


@admin.register(Deal)
class DealAdmin(GameRecordAdmin):
    list_display = ("id", "table", "number", "stake", "status", "dealt_at", "revealed_at")
    list_filter = ("status", "table__mode")
    list_select_related = ("table",)
    secret_fields = ("deck_order", "secret")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "deal", "seat", "ledger", "amount", "balance", "created_at")
    list_filter = ("ledger",)
    list_select_related = ("deal", "seat")


@admin.register(Hand)
class HandAdmin(GameRecordAdmin):
    list_display = ("id", "deal", "seat_number", "result", "skill", "luck_label")
    list_filter = ("result",)
    list_select_related = ("deal",)
    # Every field that names a card (the house way is written at the reveal).
    secret_fields = ("cards", "front", "back", "house_front", "house_back", "house_row")


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
