from django.contrib import admin

from .models import Deal, Hand, LedgerEntry, Seat, Table


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "mode", "status", "created_by", "deals_count", "updated_at")
    list_filter = ("mode", "status")


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "stake", "status", "dealt_at")
    list_filter = ("status",)


admin.site.register(Seat)
admin.site.register(Hand)
admin.site.register(LedgerEntry)
