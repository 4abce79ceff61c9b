"""The history's filters, defined once: table, mode, result, date_from and
date_to, with their types, choices, labels and help, and the one check
across them (the start date is not after the end date).

The same ``HistoryFilter`` is the page's filter form (``HistoryFilter.for_page``
offers the player's own tables to choose from), the API's query parameters
(``DjangoFilterBackend``: a bad one is a 400 in the ``{"error", "detail"}``
shape) and the OpenAPI schema's (drf-spectacular reads the FilterSet). What
a valid set selects is ``hand_filters()``, a ``HandFilters``; the hands it keeps are
``selectors.revealed_hands``'s, and the skill report answers the same values
from its aggregates when it can (``games.reports``).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet

from .. import engine
from ..models import Hand, Seat
from . import selectors
from .selectors import HandFilters

MODE_HELP = "solo or friend."


class _IdField(forms.IntegerField):
    """A table's id: a whole number a database id can be."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=2**63 - 1, **kwargs)


class IdFilter(django_filters.NumberFilter):
    field_class = _IdField


def _mode_filter(field_name: str) -> django_filters.ChoiceFilter:
    return django_filters.ChoiceFilter(
        field_name=field_name, choices=engine.choices(engine.MODES), label="Mode",
        help_text=MODE_HELP, empty_label="Any mode",
        error_messages={"invalid_choice": "Use solo or friend."},
    )


class HistoryForm(forms.Form):
    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The start date is after the end date.")
        return data


class HistoryFilter(django_filters.FilterSet):
    table = IdFilter(
        field_name="deal__table__id", label="Table", help_text="Only this table's deals.",
    )
    mode = _mode_filter("deal__table__mode")
    result = django_filters.ChoiceFilter(
        choices=engine.choices(engine.RESULTS), label="Result",
        help_text="The outcome: win, push or loss.", empty_label="Any result",
        error_messages={"invalid_choice": "Use win, push or loss."},
    )
    date_from = django_filters.DateFilter(
        field_name="deal__revealed_at", lookup_expr="date__gte", label="From",
        help_text="Revealed on or after this day (YYYY-MM-DD, UTC).",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    date_to = django_filters.DateFilter(
        field_name="deal__revealed_at", lookup_expr="date__lte", label="To",
        help_text="Revealed on or before this day (YYYY-MM-DD, UTC).",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    class Meta:
        model = Hand
        fields = ("table", "mode", "result", "date_from", "date_to")
        form = HistoryForm

    @classmethod
    def for_page(cls, request: Any) -> HistoryFilter:
        """The page's form: unbound without a query; the table is chosen among
        the player's own (another id is an error beside the field)."""
        filterset = cls(request.GET or None, request=request)
        tables = selectors.sessions(user=request.user).values_list("table_id", "table__mode")
        filterset.form.fields["table"] = forms.TypedChoiceField(
            required=False, coerce=int, empty_value=None, label="Table",
            choices=[("", "Any table")] + [
                (pk, f"{engine.LABELS[mode]} table {pk}") for pk, mode in tables
            ],
        )
        for field in filterset.form.fields.values():
            field.help_text = ""  # the labels say it on the page; the help is the API's
        return filterset

    def hand_filters(self) -> HandFilters:
        """What the query selects; nothing (every deal) while any part of it is
        not valid, so a page never shows a half-applied filter."""
        if not self.is_bound or not self.is_valid():
            return HandFilters()
        data = self.form.cleaned_data
        return HandFilters(
            table=data.get("table"), mode=data.get("mode") or None,
            result=data.get("result") or None,
            date_from=data.get("date_from"), date_to=data.get("date_to"),
        )

    def filter_queryset(self, queryset: QuerySet[Hand]) -> QuerySet[Hand]:
        return selectors.hands_filtered(queryset, self.hand_filters())


class SessionFilter(django_filters.FilterSet):
    """The sessions' one filter: the history's mode."""

    mode = _mode_filter("table__mode")

    class Meta:
        model = Seat
        fields = ("mode",)
