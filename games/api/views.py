"""Read-only endpoints over the signed-in player's own history.

Every query starts from ``request.user`` in ``games.history.selectors``: a
record that is not the player's, or a deal not revealed yet, is a 404 like
one that does not exist, so ids reveal nothing. The query parameters are the
history page's FilterSet (``games.history.filters``), for the answers and the
schema alike; a bad one is a 400 with a sentence.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve, reverse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, generics, viewsets
from rest_framework.decorators import (
    action,
    api_view,
    authentication_classes,
    permission_classes,
)
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from .. import enqueue, reports
from .. import selectors as game_selectors
from ..history import export as history_export
from ..history import record, selectors
from ..history.filters import HistoryFilter, SessionFilter
from ..history.selectors import HandFilters
from ..history.views import hand_history_response
from ..models import Hand
from ..services import analysis
from . import serializers as s

DEAL_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The deal's id."
)
TABLE_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The table's id."
)


class FilterBackend(DjangoFilterBackend):
    """django-filter's backend, with a cross-field error under DRF's own key,
    and no filter form on the browsable API (DRF's button for it carries an
    inline style, which the site's policy blocks; the page's own form is at
    /history/)."""

    def to_html(self, request: Request, queryset: Any, view: Any) -> None:
        return None

    def filter_queryset(self, request: Request, queryset: Any, view: Any) -> Any:
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        _raise_unless_valid(filterset)
        return filterset.qs


def _raise_unless_valid(filterset: Any) -> None:
    if not filterset.is_valid():
        raise exceptions.ValidationError({
            api_settings.NON_FIELD_ERRORS_KEY if name == "__all__" else name: list(messages)
            for name, messages in filterset.errors.items()
        })


def history_filters(request: Request) -> HandFilters:
    """The query's filters, validated (a bad one is a 400 with a sentence)."""
    filterset = HistoryFilter(request.query_params, request=request)
    _raise_unless_valid(filterset)
    return filterset.hand_filters()


class FilteredSchema(AutoSchema):
    """The schema of a view that answers one object yet takes the history's
    filters: its filter backend's parameters, as a list's would be."""

    def get_filter_backends(self) -> list[Any]:
        return list(getattr(self.view, "filter_backends", []))


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
            "luck (or pending), decision skill and the decision cost (what the setting "
            "gave up against the best, sampled or exact, or pending)."
        ),
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
    filter_backends = (FilterBackend,)
    filterset_class = HistoryFilter

    def get_queryset(self) -> Any:
        return selectors.revealed_hands(user=self.request.user)

    def get_serializer_class(self) -> Any:
        return s.HandDetailSerializer if self.action == "retrieve" else s.HandSerializer

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        records = selectors.hand_records(page or [])
        return self.get_paginated_response(s.HandSerializer(records, many=True).data)

    @extend_schema(
        summary="Your hand history as JSON lines",
        description=(
            "Every revealed deal (the same filters as the list), newest first, one JSON "
            "object a line in the documented hand-history format (docs/hand-history.md, "
            "version 1): both settings, both sides' cards, the deck's commitment, deck and "
            "secret, the results, both ledgers, luck, skill and the decision cost. "
            "`python manage.py verify_hand_history FILE` re-settles each line with the engine."
        ),
        responses={(200, "application/jsonl"): OpenApiTypes.STR},
    )
    @action(detail=False, methods=["get"], url_path="export", pagination_class=None)
    def export(self, request: Request) -> HttpResponseBase:
        filterset = HistoryFilter(request.query_params, queryset=self.get_queryset(),
                                  request=request)
        _raise_unless_valid(filterset)
        lines = history_export.hand_history_lines(
            user=request.user, filters=filterset.hand_filters()
        )
        return hand_history_response(lines)

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        record = selectors.hand_detail(user=request.user, deal_id=_pk(pk))
        if record is None:
            raise exceptions.NotFound("There is no such revealed deal in your history.")
        return Response(s.HandDetailSerializer(record).data)


@extend_schema_view(
    list=extend_schema(
        summary="Your sessions",
        description=(
            "Each table you have dealt at: deals played, the luck average over completed "
            "estimates and how many completed, the skill total and mean over every "
            "revealed deal, the decision cost (average loss per deal and the share set "
            "at the best), both stacks and “with 5%” balances, start and end."
        ),
    ),
    retrieve=extend_schema(
        summary="One session, deal by deal",
        description=(
            "A session's summary, every revealed deal's balances, luck, skill and decision "
            "cost, and the worst decisions to review by house-way row."
        ),
        parameters=[TABLE_ID],
    ),
)
class SessionViewSet(viewsets.GenericViewSet):
    serializer_class = s.SessionSerializer
    lookup_value_regex = r"[0-9]+"
    filter_backends = (FilterBackend,)
    filterset_class = SessionFilter

    def get_queryset(self) -> Any:
        return selectors.sessions(user=self.request.user)

    def get_serializer_class(self) -> Any:
        return s.SessionDetailSerializer if self.action == "retrieve" else s.SessionSerializer

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        records = [selectors.session_record(seat) for seat in page or []]
        return self.get_paginated_response(s.SessionSerializer(records, many=True).data)

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        record = selectors.session_detail(user=request.user, table_id=_pk(pk))
        if record is None:
            raise exceptions.NotFound("There is no such session in your history.")
        return Response(s.SessionDetailSerializer(record).data)


class SkillReportView(generics.GenericAPIView):
    schema = FilteredSchema()
    filter_backends = (FilterBackend,)
    filterset_class = HistoryFilter

    def get_queryset(self) -> Any:
        return Hand.objects.none()  # the report reads its own (``games.reports``)

    @extend_schema(
        summary="Decision skill report",
        description=(
            "Decision skill over your revealed deals: by house-way row (deals, deals where "
            "you left the house way, skill sum and mean, and the decision cost: the "
            "average loss against the best setting and the share set at the best), by "
            "mode, and by day; and the worst decisions to review, by house-way row."
        ),
        responses=s.SkillReportSerializer,
    )
    def get(self, request: Request) -> Response:
        report = reports.skill_report(user=request.user, filters=history_filters(request))
        return Response(s.SkillReportSerializer(report).data)


class RecordView(APIView):
    @extend_schema(
        summary="Your whole record",
        description=(
            "Every revealed deal at your tables, solo and friend, in total and by kind of "
            "table: deals, tables, wins, pushes and losses, net chips in the actual and the "
            "“with 5%” ledgers, the luck average over completed estimates, decision skill "
            "(total and per deal) and the deals where you left the house way."
        ),
        responses=s.RecordSerializer,
    )
    def get(self, request: Request) -> Response:
        return Response(s.RecordSerializer(record.player_record(user=request.user)).data)


DEAL_NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH,
    description="The deal's number at that table (1 for the first).",
)
PENDING = "The exact analysis of your hand is being computed; ask again in a few seconds."


class ExactView(APIView):
    """The exact figures of the signed-in player's own hand (``services.analysis``):
    computed by a worker, never in the request, then answered from the cache."""

    @extend_schema(
        summary="The exact value of every setting of your hand",
        description=(
            "For your own seat's seven cards of one deal, once you have locked or the deal "
            "is revealed: each of the 21 settings against every one of the 53,524,680 "
            "opponent hands the other 46 cards allow, each set by the house way: wins, "
            "pushes, losses and the expected score, best first. 202 while a worker "
            "computes it (a few seconds; ask again), 200 once it is ready. A deal that is "
            "not yours, or before your lock, is a 404. 429 `analysis_budget` when you "
            "already have as many analyses waiting, or asked for as many this minute, as "
            "one player may (the sentence says how long to wait; so does `Retry-After`)."
        ),
        parameters=[TABLE_ID, DEAL_NUMBER],
        responses={200: s.ExactReadySerializer, 202: s.ExactPendingSerializer,
                   404: s.ErrorSerializer, 429: s.ErrorSerializer},
    )
    def get(self, request: Request, **path: str) -> Response:
        missing = exceptions.NotFound(
            "There is no such deal of yours to analyse: lock your setting first."
        )
        try:
            ids = _pk(path["id"]), _pk(path["number"])
        except exceptions.NotFound:
            raise missing from None
        seat = game_selectors.exact_seat(user=request.user, table_id=ids[0], number=ids[1])
        if seat is None:
            raise missing
        cards, mode, side = seat.cards, seat.mode, seat.side
        found = analysis.exact_analysis_cached(cards=cards, mode=mode, side=side)
        if found is None:
            analysis.exact_analysis_request(
                user=request.user, cards=cards, mode=mode, side=side)
            # Embedded (eager, outside a transaction) it was computed just now.
            found = analysis.exact_analysis_cached(cards=cards, mode=mode, side=side)
        if found is None:
            return Response({"status": "pending", "detail": PENDING}, status=202)
        if seat.cost_inexact:
            # The hand's decision cost is now exact too (games.decision_cost).
            enqueue.decision_cost_later(hand_ids=[seat.hand_id])
        return Response({"status": "ready", **found.to_json()})


ENDPOINTS = (
    ("hands", "api:hand-list", "Your revealed deals, newest first (filters as on /history/)."),
    ("hand", "api:hand-detail", "One revealed deal in full, with the skill spelled out."),
    ("hand_history", "api:hand-export",
     "Your hand history as JSON lines, each deal with its deck and secret."),
    ("tables", "api:table-list", "Your sessions: one a table you have dealt at."),
    ("table", "api:table-detail", "One session, deal by deal."),
    ("skill_report", "api:skill-report", "Decision skill by house-way row, mode and day."),
    ("record", "api:record", "Your whole record across your tables, in total and by mode."),
    ("exact", "api:deal-exact",
     "The exact value of each setting of your own hand of a deal, once you locked."),
    ("review", "api:review", "Your review deck: due first, worst first, each with its box."),
    ("schema", "api:schema", "The OpenAPI 3 schema of every endpoint."),
    ("docs", "api:docs", "The documentation, drawn from the schema."),
    ("tokens", "accounts:account", "Your account page: create and revoke API tokens."),
)


def _endpoint_url(request: Request, name: str) -> str:
    if name.endswith("-detail"):
        path = reverse(name, kwargs={"pk": 0}).replace("/0/", "/{id}/")
    elif name == "api:deal-exact":
        path = reverse(name, kwargs={"id": 0, "number": 0}).replace(
            "/0/deals/0/", "/{id}/deals/{number}/")
    else:
        path = reverse(name)
    return (request.build_absolute_uri(path).replace("%7Bid%7D", "{id}")
            .replace("%7Bnumber%7D", "{number}"))


class ApiRootView(APIView):
    """The API's front door: every endpoint with its absolute URL. Public,
    like the schema: it holds no player's data."""

    permission_classes = (AllowAny,)

    @extend_schema(
        summary="The API's endpoints",
        description=(
            "Every endpoint's absolute URL and what it answers, and how to authenticate: "
            "signed in, or `Authorization: Token <token>` with a personal token from "
            "your account page."
        ),
        responses=s.ApiRootSerializer,
    )
    def get(self, request: Request) -> Response:
        return Response({
            "endpoints": {
                key: {"url": _endpoint_url(request, name), "description": text}
                for key, name, text in ENDPOINTS
            },
            "authentication": (
                "Your browser session, or the header `Authorization: Token <token>` "
                "with a personal token created at "
                f"{request.build_absolute_uri(reverse('accounts:account'))}."
            ),
        })


@extend_schema(exclude=True)
@api_view(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
@permission_classes([AllowAny])
@authentication_classes([])
def not_found(request: Request, rest: str = "") -> HttpResponseBase:
    """Any other path under /api/: a 404 in the API's error shape (a path that
    only lacks its final slash is redirected, as Django's APPEND_SLASH does)."""
    if request.method in ("GET", "HEAD") and not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "not-found":
            query = request.META.get("QUERY_STRING", "")
            target = request.path + "/" + (f"?{query}" if query else "")
            return HttpResponsePermanentRedirect(target)
    raise exceptions.NotFound(
        "There is no such API endpoint: the list of endpoints is at /api/."
    )
