"""Server-rendered pages: the lobby, a table, an invite link and a deal's
shuffle check. The table page carries the seat's own view
(``selectors.table_state``) for the first paint; the browser then talks to the
table over its WebSocket."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.walkthrough import walkthrough_pending

from . import invite_limits, selectors, services
from .engine.errors import GameError, InviteNotFound, SeatTaken
from .models import Table
from .realtime import broadcast


@login_required
@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    if request.session.get(PENDING_INVITE):
        # Signed in or up from a page that did not carry ``next`` (the
        # header's links): the invite that waited is taken up now.
        return redirect("games:join")
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
        {"table": seat.table, "state": state, "invite_url": invite["url"] if invite else None,
         # The first-table walkthrough, until the player has done or skipped it.
         "show_walkthrough": walkthrough_pending(user=request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
def table_close(request: HttpRequest, table_id: int) -> HttpResponse:
    """Close a waiting table or leave one between deals: the page says first
    what becomes of the chips; its button (a POST) does it, tells the other
    seat's sockets and goes back to the lobby."""
    try:
        closing = selectors.table_closing(user=request.user, table_id=table_id)
    except GameError:
        raise Http404("There is no such table, or you do not have a seat at it.") from None
    if request.method == "GET" or not closing["can"]:
        return render(request, "games/table_close.html", closing,
                      status=200 if request.method == "GET" else 409)
    try:
        table = services.table_close(user=request.user, table_id=table_id)
    except GameError as exc:  # a deal began meanwhile
        closing = selectors.table_closing(user=request.user, table_id=table_id)
        return render(request, "games/table_close.html", {**closing, "error": exc.detail},
                      status=exc.status)
    broadcast.table_changed(table=table)
    kept = " Its deals stay in your history." if table.deals_count else ""
    messages.success(request, f"{table} is closed.{kept}")
    return redirect("games:lobby")


# The invite token waiting in the session while its visitor signs in.
PENDING_INVITE = "games.invite_token"


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    """Where an invite link lands. The link carries its token after "#",
    which a browser never sends, so no access log, proxy or Referer sees it;
    this page's script posts it here (a form body is not logged). Without
    script, the visitor pastes the link into the form. A token that waited in
    the session while its visitor signed in is used on the way back here."""
    if request.method == "POST":
        return _invite_answer(request, _token_from(request.POST.get("token", "")))
    pending = request.session.get(PENDING_INVITE)
    if pending and request.user.is_authenticated:
        return _invite_answer(request, pending)
    return render(request, "games/join.html")


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """The older form of the link, with the token in the path (links handed
    out before the "#" form still work until they expire)."""
    return _invite_answer(request, token)


def _token_from(text: str) -> str:
    """The token of a pasted link (either form) or of a bare token."""
    text = text.strip()
    if "#" in text:
        return text.rsplit("#", 1)[1]
    if "/invite/" in text:
        return text.split("/invite/", 1)[1].strip("/")
    return text


def _invite_answer(request: HttpRequest, token: str) -> HttpResponse:
    """Seat the signed-in friend once and go to the table. The host (or the
    friend again) just goes to the table; a third person is told the table is
    full. A signed-out visitor with a known link is sent to sign in (or up),
    its token waiting in the session, so it is never part of a URL; the
    sign-in and sign-up pages say who invited them, or why the link no longer
    seats anyone (``templatetags.invites``): one of the table's two players
    may still be going back to it."""
    request.session.pop(PENDING_INVITE, None)
    try:
        invite_limits.check_invite(request)
        try:
            if not request.user.is_authenticated:
                return _invite_waits(request, token)
            table = services.invite_accept(user=request.user, token=token)
        except GameError:
            invite_limits.invite_failed(request)
            raise
    except GameError as exc:
        return _invite_refused(request, exc)
    broadcast.table_changed(table=table)
    return redirect("games:table", table_id=table.pk)


def _invite_waits(request: HttpRequest, token: str) -> HttpResponse:
    """Keep a signed-out visitor's known token while they sign in or up
    (``InviteNotFound`` for any other)."""
    try:
        services.invite_preview(token=token)
    except InviteNotFound:
        raise
    except GameError:
        pass  # a dead link: the sign-in page says so
    request.session[PENDING_INVITE] = token
    return redirect_to_login(reverse("games:join"))


def _invite_refused(request: HttpRequest, exc: GameError) -> HttpResponse:
    heading = "This table is full" if isinstance(exc, SeatTaken) else "Invite link"
    return render(
        request,
        "games/invite.html",
        {"heading": heading, "error": exc.code, "detail": exc.detail},
        status=exc.status,
    )


@login_required
@require_GET
def deal_verify(request: HttpRequest, table_id: int, number: int) -> HttpResponse:
    """Check a deal's shuffle against its commitment (seated players only)."""
    try:
        check = selectors.deal_verification(user=request.user, table_id=table_id, number=number)
    except GameError:
        raise Http404("There is no such deal, or you do not have a seat at its table.") from None
    return render(request, "games/verify.html", {"check": check})
