"""Reads for pages and the table socket.

``table_state`` is the one place a seat's view of a table is built: the deal
part comes from ``engine.seat_view`` (which leaves the other side's cards and
setting, the deck and the secret out until the reveal), and everything added
around it here is either public (stacks, stakes) or only added after the
reveal (results). Pages and every socket frame use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F, QuerySet
from django.urls import get_script_prefix, reverse
from django.utils import timezone

from . import engine, reads
from .engine.errors import NotSeated, TableNotFound
from .models import Deal, Hand, Invite, Presence, Seat, Table


def seat_for(*, user: Any, table_id: int) -> Seat:
    """The user's seat at a table, or a domain error (the same for a table that
    does not exist and one they are not at, so ids reveal nothing)."""
    if not getattr(user, "is_authenticated", False):
        raise NotSeated()
    seat = Seat.objects.filter(table_id=table_id, user_id=user.pk).select_related("table").first()
    if seat is None:
        raise TableNotFound()
    return seat


def tables_open_for(*, user: Any) -> QuerySet[Table]:
    """Tables the user is seated at that can still deal, most recent first."""
    return (
        Table.objects.filter(seats__user=user)
        .exclude(status=Table.Status.FINISHED)
        .order_by("-updated_at")
    )


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _seat_summary(seat: Seat) -> dict[str, Any]:
    return {
        "seat": seat.number,
        "name": seat.name,
        "dealer": seat.is_dealer,
        "stack": seat.stack,
        "with_5": _money(seat.balance_with_commission),
    }


def _snapshot(deal: Deal, hands: list[Hand]) -> engine.DealSnapshot:
    seats = tuple(
        engine.SeatState(cards=h.card_list, front=h.front_cards, back=h.back_cards) for h in hands
    )
    return engine.DealSnapshot(
        seats=(seats[0], seats[1]),
        revealed=deal.revealed,
        commitment=deal.commitment,
        deck_order=deal.deck,
        secret=deal.secret,
    )


def _outcome(hand: Hand) -> dict[str, Any]:
    """A side's settlement. Only ever called for a revealed deal."""
    front, back = hand.front_cards or (), hand.back_cards or ()
    return {
        "front_name": engine.front_name(front),
        "back_name": engine.back_name(back),
        "front_result": hand.front_result,
        "back_result": hand.back_result,
        "result": hand.result,
        "foul": bool(hand.foul),
        "score": float(hand.score) if hand.score is not None else None,
        "house_way": {
            "front": hand.house_front.split(),
            "back": hand.house_back.split(),
            "row": hand.house_row,
        },
        "skill": float(hand.skill) if hand.skill is not None else None,
        "luck": hand.luck_label or None,
    }


def _name_kickers(results: dict[str, Any], mine: Hand, theirs: Hand) -> None:
    """Backs whose names tie ("pair of nines" against "pair of nines") get
    ``back_words`` naming the kicker that decided."""
    you, other = results["you"], results["other"]
    if you["back_name"] != other["back_name"] or not (mine.back_cards and theirs.back_cards):
        return
    words = engine.backs_in_words(mine.back_cards, theirs.back_cards)
    if words[0] != words[1]:
        you["back_words"], other["back_words"] = words


def luck_check(hand: Hand) -> str | None:
    """Where the hand's luck estimate stands: None (none recorded),
    "checking" (recorded, not checked yet), "passed" or "flagged" (the check
    against the deterministic draw, ``upkeep.luck_verify``). Reads
    ``luck_ok`` as ``latest_deal`` reads it with the hand (0 or 1 on SQLite)."""
    if hand.luck_wins is None:
        return None
    ok = getattr(hand, "luck_ok", None)
    if ok is None:
        return "checking"
    return "passed" if ok else "flagged"


def _other_outcome(hand: Hand) -> dict[str, Any]:
    """The other side's settlement, with its luck as ``other_luck`` shows it."""
    outcome = _outcome(hand)
    outcome.update(other_luck(hand))
    return outcome


def other_luck(hand: Hand) -> dict[str, Any]:
    """What the other seat is shown of ``hand``'s luck estimate: its label
    only once the estimate has passed the check. A client can send any
    counts, so until then that seat is told it is being checked, and a
    flagged estimate is left out as if none had been sent (its numbers never
    reach that seat)."""
    return luck_shown(label=hand.luck_label, check=luck_check(hand))


def luck_shown(*, label: str, check: str | None) -> dict[str, Any]:
    """``other_luck`` of an estimate labelled ``label`` whose check stands at
    ``check`` (``luck_check``)."""
    return {
        "luck": (label or None) if check == "passed" else None,
        "luck_check": check if check in ("checking", "passed") else None,
    }


def deal_view(*, deal: Deal, viewer: int, hands: list[Hand] | None = None) -> dict[str, Any]:
    """One seat's view of one deal (``hands``: its two hands by seat, when
    already read)."""
    if hands is None:
        hands = list(
            Hand.objects.filter(deal=deal)
            .annotate(luck_ok=F("luck_audit__ok"))
            .order_by("seat_number")
        )
    view: dict[str, Any] = {"number": deal.number, "stake": deal.stake}
    view.update(engine.seat_view(_snapshot(deal, hands), viewer))
    mine = hands[viewer]
    view["you"]["foul_confirmed"] = mine.foul_confirmed
    if mine.locked:
        view["you"]["front_name"] = engine.front_name(mine.front_cards or ())
        view["you"]["back_name"] = engine.back_name(mine.back_cards or ())
    visible = list(mine.card_list)
    if deal.revealed:
        view["results"] = {"you": _outcome(mine), "other": _other_outcome(hands[1 - viewer])}
        _name_kickers(view["results"], mine, hands[1 - viewer])
        view["links"] = deal_links(deal)
        visible = list(deal.deck)
    # Card names for people, only for cards this seat may see.
    view["names"] = {code: engine.card_name(code) for code in visible}
    return view


def deal_links(deal: Deal) -> dict[str, str]:
    """A revealed deal's pages for a seated player: its replay in the history
    and its shuffle proof (a new dict each call)."""
    replay, verify = _link_patterns(get_script_prefix())
    return {"replay": replay % deal.pk, "verify": verify % (deal.table_id, deal.number)}


# Stand-ins for the ids in a reversed link: no id or number here is this large.
_LINK_IDS = (9_100_000_001, 9_200_000_002)


@lru_cache(maxsize=16)
def _link_patterns(prefix: str) -> tuple[str, str]:
    """The links of ``deal_links`` as %-patterns, reversed once per script
    prefix. Every frame after a reveal carries them: reverse() twice a view
    was a twenty-fifth of a server's CPU under load, and once a deal still a
    hundredth (docs/benchmarks.md)."""

    def pattern(name: str, count: int) -> str:
        url = reverse(name, args=_LINK_IDS[:count]).replace("%", "%%")
        for stand_in in _LINK_IDS[:count]:
            url = url.replace(str(stand_in), "%d")
        return url

    return pattern("history:deal", 1), pattern("games:deal_verify", 2)


def open_invite(*, table: Table) -> Invite | None:
    """The table's invite link that can still seat someone, if any."""
    if table.mode != Table.Mode.FRIEND or table.status != Table.Status.WAITING:
        return None
    return (
        Invite.objects.filter(
            table=table,
            used_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
        .order_by("-created_at")
        .first()
    )


def invite_url(invite: Invite, base_url: str = "") -> str:
    """The invite's link: absolute when ``base_url`` (scheme and host) is given.
    The token goes after "#", which browsers never send, so it stays out of
    every server and proxy log (the page at ``games:join`` posts it)."""
    return base_url.rstrip("/") + reverse("games:join") + "#" + invite.token


def _invite_view(table: Table, seat_number: int, base_url: str) -> dict[str, Any] | None:
    """The open invite link, for the host (seat 0) only."""
    if seat_number != 0:
        return None
    invite = open_invite(table=table)
    if invite is None:
        return None
    return {"url": invite_url(invite, base_url), "expires_at": invite.expires_at.isoformat()}


def _fresh_presence() -> QuerySet[Presence]:
    """Presence rows seen within ``PRESENCE_TTL_SECONDS``."""
    fresh = timezone.now() - timedelta(seconds=settings.PRESENCE_TTL_SECONDS)
    return Presence.objects.filter(last_seen__gte=fresh)


def seat_connected(seat: Seat) -> bool:
    """Whether the seat has a table socket open now (the dealer always has).
    Uses the ``present`` count of ``table_seats``'s read when it is there."""
    present = getattr(seat, "present", None)  # read with the seat by table_seats
    if present is None and not seat.is_dealer and seat.user_id is not None:
        present = _fresh_presence().filter(seat=seat).exists()
    return seat_is_connected(dealer=seat.is_dealer, user_id=seat.user_id, present=present)


def seat_is_connected(*, dealer: bool, user_id: int | None, present: object) -> bool:
    """The dealer is always there; an empty seat never; a player while a
    socket of theirs has a fresh presence row."""
    return bool(dealer) or (user_id is not None and bool(present))


def other_connected(*, table_id: int, seat_number: int) -> bool:
    """Whether the seat facing ``seat_number`` has a table socket open now
    (``seat_connected``)."""
    connected: bool = reads.read_all(
        other_connected_read(table_id=table_id, seat_number=seat_number)
    )[0]
    return connected


def other_connected_read(*, table_id: int, seat_number: int) -> reads.Read:
    """``other_connected`` as a ``reads.Read`` (every open socket asks every
    heartbeat, with its session's read: ``realtime.presence``)."""
    fresh = timezone.now() - timedelta(seconds=settings.PRESENCE_TTL_SECONDS)
    return reads.Read(
        "SELECT s.is_dealer, s.user_id, EXISTS(SELECT 1 FROM {presence} p"
        " WHERE p.seat_id = s.id AND p.last_seen >= %s)"
        " FROM {seat} s WHERE s.table_id = %s AND s.number = %s",
        [connection.ops.adapt_datetimefield_value(fresh), table_id, 1 - seat_number],
        _connected,
    )


def _connected(columns: tuple[str, ...], fetched: list[Any]) -> bool:
    if not fetched:
        raise TableNotFound()
    dealer, user_id, present = fetched[0]
    return seat_is_connected(dealer=dealer, user_id=user_id, present=present)


# --- the hot path: one seat's view of a table ---------------------------------
#
# Every change a socket makes reads both seats' views (``seat_views``), and
# every connect or refresh one (``table_state``), so their reads are written
# as SQL once (``games.reads``) instead of being compiled by the ORM on every
# call: the same rows, made into models through ``from_db`` with the ORM's own
# database converters (SQLite and PostgreSQL give the same values), and on
# PostgreSQL several in one round trip (``reads.read_all``).


def _read_seats(table_id: int) -> tuple[Table, list[Seat], LatestDeal]:
    """The table, ``table_seats`` and ``latest_deal``: one round trip on
    PostgreSQL (``reads.read_all``)."""
    tables, seats, latest = reads.read_all(
        reads.rows_read(Table, "SELECT * FROM {table} WHERE id = %s", [table_id]),
        table_seats_read(table_id=table_id),
        latest_deal_read(table_id=table_id),
    )
    if not tables:
        raise TableNotFound()
    return tables[0], seats_of(tables[0], seats), latest


def table_seats(*, table: Table) -> list[Seat]:
    """The table's two seats by number, each with ``present`` (how many fresh
    presence rows: open sockets) and its user (only the username loaded): all
    a view needs of them, in one query (``services.table_open``
    reads them so too, under the table's lock, with the latest deal)."""
    found: list[Seat] = reads.read_all(table_seats_read(table_id=table.pk))[0]
    return seats_of(table, found)


def table_seats_read(*, table_id: int) -> reads.Read:
    """``table_seats`` as a ``reads.Read`` (its seats then go through ``seats_of``)."""
    fresh = timezone.now() - timedelta(seconds=settings.PRESENCE_TTL_SECONDS)
    return reads.rows_read(
        Seat,
        "SELECT s.*, u.username AS user_username, (SELECT count(*) FROM {presence} p"
        " WHERE p.seat_id = s.id AND p.last_seen >= %s) AS present"
        " FROM {seat} s LEFT JOIN {user} u ON u.id = s.user_id"
        " WHERE s.table_id = %s ORDER BY s.number",
        [connection.ops.adapt_datetimefield_value(fresh), table_id],
    )


def seats_of(table: Table, seats: list[Seat]) -> list[Seat]:
    """The seats ``table_seats_read`` read, with their table and users set."""
    user_model = get_user_model()
    for seat in seats:
        seat.table = table
        if seat.user_id is not None:  # as .only("id", "username") would load it
            seat.user = user_model.from_db(
                connection.alias, ["id", "username"], (seat.user_id, vars(seat)["user_username"])
            )
    return seats


LatestDeal = tuple[Deal | None, list[Hand]]


def latest_deal(*, table_id: int) -> LatestDeal:
    """The table's latest deal (the one in progress, if any) and its hands by
    seat number: what every view shows. One statement, written once (one
    snapshot: the hands are those of the deal it reads)."""
    found: LatestDeal = reads.read_all(latest_deal_read(table_id=table_id))[0]
    return found


def latest_deal_read(*, table_id: int) -> reads.Read:
    """``latest_deal`` as a ``reads.Read``."""
    joined = reads.joined_read(Deal, Hand, _latest_deal_sql(), [table_id])
    return joined._replace(build=lambda columns, fetched: _latest(joined.build(columns, fetched)))


def _latest(found: list[tuple[Deal, Hand | None]]) -> LatestDeal:
    if not found:
        return None, []
    deal = found[0][0]
    hands = [hand for _, hand in found if hand is not None]
    for hand in hands:
        hand.deal = deal
    return deal, hands


@cache
def _latest_deal_sql() -> str:
    # ``luck_ok``: the estimate's check (``upkeep.luck_verify``), None until it is made.
    return (
        f"SELECT {reads.columns_of(Deal, 'd')}, h.*, a.ok AS luck_ok FROM {{deal}} d"
        " LEFT JOIN {hand} h ON h.deal_id = d.id"
        " LEFT JOIN {luck_audit} a ON a.hand_id = h.id"
        " WHERE d.id = (SELECT id FROM {deal} WHERE table_id = %s ORDER BY number DESC LIMIT 1)"
        " ORDER BY h.seat_number"
    )


def table_state(*, table_id: int, seat_number: int, base_url: str = "") -> dict[str, Any]:
    """Everything seat ``seat_number`` may see of a table now (resume included).
    ``base_url`` (e.g. ``https://example.org``) makes the host's invite link absolute."""
    table, seats, (deal, hands) = _read_seats(table_id)
    return _seat_state(table, seats, deal, hands, seat_number, base_url)


class SeatView(NamedTuple):
    number: int
    state: dict[str, Any]
    sockets: int  # the seat's open table sockets when it was read


def table_states(*, table_id: int, base_url: str = "") -> list[SeatView]:
    """``seat_views`` read now (three statements for both seats, one round trip
    on PostgreSQL)."""
    table, seats, latest = _read_seats(table_id)
    return seat_views(table=table, seats=seats, latest=latest, base_url=base_url)


def seat_views(
    *, table: Table, seats: Sequence[Seat], latest: LatestDeal | None = None, base_url: str = ""
) -> list[SeatView]:
    """``table_state`` of every seat a person sits in, with how many sockets
    each has open: what a socket pushes to the seats after a change. From
    ``table`` and ``seats`` as read by ``table_seats`` (in the transaction of
    the change, which holds the table's lock) and the latest deal: ``latest``
    when the change already holds it as it left it (``services``), else read
    here (one statement for both seats, not two a seat)."""
    deal, hands = latest if latest is not None else latest_deal(table_id=table.pk)
    return [
        SeatView(
            seat.number,
            _seat_state(table, seats, deal, hands, seat.number, base_url),
            int(getattr(seat, "present", 0)),
        )
        for seat in seats
        if seat.user_id is not None and not seat.is_dealer
    ]


def _seat_state(
    table: Table,
    seats: Sequence[Seat],
    deal: Deal | None,
    hands: list[Hand],
    seat_number: int,
    base_url: str,
) -> dict[str, Any]:
    you, other = seats[seat_number], seats[1 - seat_number]
    proposal = None
    if table.stake_proposed is not None:
        proposal = {
            "amount": table.stake_proposed,
            "by": "you" if table.stake_proposed_by == seat_number else "other",
            "id": table.stake_proposal,  # an accept names it (services.stake_accept)
        }
    return {
        "table": {
            "id": table.pk,
            "version": table.version,
            "mode": table.mode,
            "status": table.status,
            "stake": table.stake,
            "proposal": proposal,
            "last_stake": table.last_stake,
            "max_stake": min(you.stack, other.stack),
            "deals": table.deals_count,
            "invite": _invite_view(table, seat_number, base_url),
        },
        "seats": {
            "you": _seat_summary(you),
            "other": {**_seat_summary(other), "connected": seat_connected(other)},
        },
        "deal": None if deal is None else deal_view(deal=deal, viewer=seat_number, hands=hands),
        "session": session_summary(seat=you),
    }


def session_summary(*, seat: Seat) -> dict[str, Any]:
    """A seat's session at its table (rules §8): the luck average over completed
    estimates only (exact, shown rounded half up to one decimal), and decision
    skill over every revealed hand (total and mean). From the totals the
    services keep on the seat: the estimates and their points, 2 × wins +
    pushes (``engine.luck_average``)."""
    total = Decimal(seat.session_skill)
    exact = engine.luck_average(points=seat.session_luck_points, estimates=seat.session_lucks)
    average = None if exact is None else str(engine.half_up(exact, 1))
    return {
        "hands": seat.session_hands,
        "luck_count": seat.session_lucks,
        "luck_average": average,
        "skill_total": float(total),
        "skill_mean": None if not seat.session_hands else float(total / seat.session_hands),
    }


def deal_verification(*, user: Any, table_id: int, number: int) -> dict[str, Any]:
    """What a seated player may see to check a deal's shuffle: the commitment
    always; the deck, the secret and the check's result after the reveal."""
    seat_for(user=user, table_id=table_id)
    deal = Deal.objects.filter(table_id=table_id, number=number).first()
    if deal is None:
        raise TableNotFound("There is no such deal at this table.")
    view: dict[str, Any] = {
        "table_id": table_id,
        "number": deal.number,
        "commitment": deal.commitment,
        "revealed": deal.revealed,
    }
    if deal.revealed:
        view["deck"] = list(deal.deck)
        view["secret"] = deal.secret
        view["preimage"] = " ".join(deal.deck) + "|" + deal.secret
        view["verified"] = engine.verify_shuffle(deal.deck, deal.secret, deal.commitment)
    return view


class ExactSeat(NamedTuple):
    """What the exact analysis of a seat's hand is asked for (``api``)."""

    cards: tuple[str, ...]
    mode: str
    side: str
    # The hand, and whether its decision cost still waits for these figures.
    hand_id: int = 0
    cost_inexact: bool = False


def exact_seat(*, user: Any, table_id: int, number: int) -> ExactSeat | None:
    """The signed-in player's own seat's hand of a deal, once that seat has
    locked or the deal is revealed: its cards, the table's mode and the seat's
    side. None otherwise (not the player's deal, no such deal, not locked
    yet), so an id tells nothing."""
    hand = (
        Hand.objects.filter(deal__table_id=table_id, deal__number=number, seat__user_id=user.pk)
        .select_related("deal__table", "seat")
        .first()
    )
    if hand is None or not (hand.locked_at is not None or hand.deal.revealed):
        return None
    side = "dealer" if hand.seat.is_dealer else "player"
    return ExactSeat(
        cards=tuple(hand.cards.split()),
        mode=hand.deal.table.mode,
        side=side,
        hand_id=hand.pk,
        cost_inexact=hand.deal.revealed and side == "player" and hand.cost_method != "exact",
    )


def table_closing(*, user: Any, table_id: int) -> dict[str, Any]:
    """What closing or leaving a table does, for the page that asks first
    (``services.table_close``): whether it can be done now, and what becomes of
    the chips, in a sentence. ``TableNotFound`` as ``seat_for``."""
    seat = seat_for(user=user, table_id=table_id)
    table: Table = seat.table
    other = Seat.objects.filter(table=table).exclude(pk=seat.pk).select_related("user").first()
    friend = other.user.username if other is not None and other.user else ""
    waiting = table.status == Table.Status.WAITING
    can = table.status in (Table.Status.WAITING, Table.Status.BETTING)
    if table.status == Table.Status.FINISHED:
        chips = "This table is already finished: it is no longer in your lobby."
    elif table.status == Table.Status.PLAYING:
        chips = (
            f"Deal {table.deals_count} is in progress: finish it first (lock your setting; "
            "the reveal settles it), then leave the table. No deal is ever cut off."
        )
    elif table.deals_count == 0:
        chips = "No deal was played, so nothing is lost: no chips move" + (
            " and the invite link stops working." if waiting else "."
        )
    else:
        others = f" and {friend}'s {other.stack:,}" if friend and other else ""
        chips = (
            f"No chips move: your stack of {seat.stack:,} chips{others} stays with this "
            f"table's {table.deals_count} deal{'s' if table.deals_count != 1 else ''} in your "
            "history. Play chips do not carry over: a new table starts again with "
            f"{table.starting_stack:,}."
        )
    if can and (table.stake or table.stake_proposed):
        chips += " The stake set for the next deal is dropped."
    if can and friend:
        chips += f" The table finishes for {friend} too: their page says it is finished."
    return {
        "table": table,
        "can": can,
        "verb": "Close" if waiting else "Leave",
        "chips": chips,
    }
