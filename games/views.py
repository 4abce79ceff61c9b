"""Server-rendered pages: the lobby, a table, an invite link and a deal's
shuffle check. The table page carries the seat's own view
(``selectors.table_state``) for the first paint; the browser then talks to the
table over its WebSocket."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import broadcast, selectors, services, throttles
from .exceptions import GameError, SeatTaken
from .models import Table


@login_required
@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    tables = selectors.tables_open_for(user=request.user)
    return render(request, "games/lobby.html", {"tables": tables})


@login_required
@require_POST
def table_new(request: HttpRequest, mode: str) -> HttpResponse:
    if mode not in Table.Mode.values:
        raise Http404("No such table mode.")
    table = services.table_start(user=request.user, mode=mode)
    return redirect("games:table", table_id=table.pk)


@login_required
@require_GET
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        seat = selectors.seat_for(user=request.user, table_id=table_id)
    except GameError:
        raise Http404("There is no such table, or you do not have a seat at it.") from None
    base_url = request.build_absolute_uri("/").rstrip("/")
    state = selectors.table_state(table_id=table_id, seat_number=seat.number, base_url=base_url)
    invite = state["table"]["invite"]  # the host's open link, else None
    return render(
        request,
        "games/table.html",
        {"table": seat.table, "state": state, "invite_url": invite["url"] if invite else None},
    )


@login_required
@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: seat the signed-in friend once and go to the table.
    The host (or the friend again) just goes to the table; a third person is
    told the table is full. Signed-out visitors sign in or sign up first
    (``login_required`` sends them back here)."""
    try:
        throttles.check_invite(request)
        try:
            table = services.invite_accept(user=request.user, token=token)
        except GameError:
            throttles.invite_failed(request)
            raise
    except GameError as exc:
        heading = "This table is full" if isinstance(exc, SeatTaken) else "Invite link"
        return render(
            request,
            "games/invite.html",
            {"heading": heading, "error": exc.code, "detail": exc.detail},
            status=exc.status,
        )
    broadcast.table_changed(table=table)
    return redirect("games:table", table_id=table.pk)


@login_required
@require_GET
def deal_verify(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    """Check a deal's shuffle against its commitment (seated players only)."""
    try:
        check = selectors.deal_verification(user=request.user, table_id=table_id, number=number)
    except GameError:
        raise Http404("There is no such deal, or you do not have a seat at its table.") from None
    return render(request, "games/verify.html", {"check": check})
