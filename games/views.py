"""Server-rendered pages: the lobby and a table. The table page carries the
seat's own view (``selectors.table_state``) for the first paint; the browser
then talks to the table over its WebSocket."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from . import selectors, services
from .exceptions import GameError
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
    state = selectors.table_state(table_id=table_id, seat_number=seat.number)
    return render(
        request,
        "games/table.html",
        {"table": seat.table, "state": state},
    )
