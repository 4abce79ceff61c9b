"""Read-only endpoints over the signed-in player's own history.

Every query starts from ``request.user`` in ``games.history``: a record that
is not the player's, or a deal not revealed yet, is a 404 like one that does
not exist, so ids reveal nothing.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import history
from . import serializers as s

FILTER_PARAMETERS = [
    OpenApiParameter("table", OpenApiTypes.INT, description="Only this table's deals."),
    OpenApiParameter("mode", OpenApiTypes.STR, enum=s.MODES, description="solo or friend."),
    OpenApiParameter(
        "result", OpenApiTypes.STR, enum=["win", "push", "loss"], description="The outcome."
    ),
    OpenApiParameter(
        "date_from", OpenApiTypes.DATE, description="Revealed on or after this day (UTC)."
    ),
    OpenApiParameter(
        "date_to", OpenApiTypes.DATE, description="Revealed on or before this day (UTC)."
    ),
]
MODE_PARAMETER = [
    OpenApiParameter("mode", OpenApiTypes.STR, enum=s.MODES, description="solo or friend.")
]
DEAL_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The deal's id."
)
TABLE_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The table's id."
)


def history_filters(params: Any) -> history.HandFilters:
    """The query's filters, validated (a bad one is a 400 with a sentence)."""
    checked = s.HistoryFilterSerializer(data=params)
    checked.is_valid(raise_exception=True)
    return history.HandFilters(**checked.validated_data)


def _pk(value: object) -> int:
    try:
        pk = int(str(value))
    except ValueError:
        pk = 0
    if not 0 < pk < 2**63:
        raise exceptions.NotFound()
    return pk


@extend_schema_view(
    list=extend_schema(
        summary="Your revealed deals",
        description=(
            "The signed-in player's revealed deals, newest first, 25 a page. Each shows "
            "both sides' cards and settings (the other side's only because the deal is "
            "revealed), the house way, each part's result, the outcome, both ledgers, "
            "luck (or pending) and decision skill."
        ),
        parameters=FILTER_PARAMETERS,
    ),
    retrieve=extend_schema(
        summary="One revealed deal in full",
        description=(
            "One of your revealed deals, with the skill spelled out: the actual score, "
            "the house way's score against the same opponent setting, and the difference. "
            "A deal you did not play, or one not revealed yet, is a 404."
        ),
        parameters=[DEAL_ID],
    ),
)
class HandViewSet(viewsets.GenericViewSet):
    serializer_class = s.HandSerializer
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> Any:
        return history.revealed_hands(
            user=self.request.user, filters=history_filters(self.request.query_params)
        )

    def get_serializer_class(self) -> Any:
        return s.HandDetailSerializer if self.action == "retrieve" else s.HandSerializer

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        records = history.hand_records(page or [])
        return self.get_paginated_response(s.HandSerializer(records, many=True).data)

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        record = history.hand_detail(user=request.user, deal_id=_pk(pk))
        if record is None:
            raise exceptions.NotFound("There is no such revealed deal in your history.")
        return Response(s.HandDetailSerializer(record).data)


@extend_schema_view(
    list=extend_schema(
        summary="Your sessions",
        description=(
            "Each table you have dealt at: deals played, the luck average over completed "
            "estimates and how many completed, the skill total and mean over every "
            "revealed deal, both stacks and “with 5%” balances, start and end."
        ),
        parameters=MODE_PARAMETER,
    ),
    retrieve=extend_schema(
        summary="One session, deal by deal",
        description="A session's summary and every revealed deal's balances, luck and skill.",
        parameters=[TABLE_ID],
    ),
)
class SessionViewSet(viewsets.GenericViewSet):
    serializer_class = s.SessionSerializer
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> Any:
        mode = self.request.query_params.get("mode") or None
        if mode is not None and mode not in s.MODES:
            raise exceptions.ValidationError({"mode": ["Use solo or friend."]})
        return history.sessions(user=self.request.user, mode=mode)

    def get_serializer_class(self) -> Any:
        return s.SessionDetailSerializer if self.action == "retrieve" else s.SessionSerializer

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        records = [history.session_record(seat) for seat in page or []]
        return self.get_paginated_response(s.SessionSerializer(records, many=True).data)

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        record = history.session_detail(user=request.user, table_id=_pk(pk))
        if record is None:
            raise exceptions.NotFound("There is no such session in your history.")
        return Response(s.SessionDetailSerializer(record).data)


class SkillReportView(APIView):
    @extend_schema(
        summary="Decision skill report",
        description=(
            "Decision skill over your revealed deals: by house-way row (deals, deals where "
            "you left the house way, skill sum and mean), by mode, and by day."
        ),
        parameters=FILTER_PARAMETERS,
        responses=s.SkillReportSerializer,
    )
    def get(self, request: Request) -> Response:
        report = history.skill_report(
            user=request.user, filters=history_filters(request.query_params)
        )
        return Response(s.SkillReportSerializer(report).data)
