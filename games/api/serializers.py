"""Serializers for the read-only history API.

The records are built by ``games.history.selectors`` and ``games.reports``;
these classes describe them, field by field, for the OpenAPI schema and
render them (money and skill as decimal strings, luck as numbers).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..engine import LUCK_SAMPLES, MODES, PARTS, RESULTS
from ..engine.cost import COST_METHODS, EXACT_OPPONENTS


def _choice(values: list[str], key: str) -> type[serializers.CharField]:
    """A read-only string field whose schema is an enum; ``key`` keeps the
    front's and the back's (same values, different names) apart in the
    schema's enum components."""

    @extend_schema_field({"type": "string", "enum": values, "x-spec-enum-id": key})
    class Choice(serializers.CharField):
        pass

    return Choice


FrontField = _choice(list(PARTS), "front")
BackField = _choice(list(PARTS), "back")
ResultField = _choice(list(RESULTS), "result")
ModeField = _choice(list(MODES), "mode")
LuckStatusField = _choice(["pending", "completed"], "luck-status")
CostStatusField = _choice(["pending", *COST_METHODS], "cost-status")


def _cards(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), help_text=help_text)


def _money(help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=14, decimal_places=2, help_text=help_text)


def _skill(help_text: str, **kwargs: Any) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=8, decimal_places=2, help_text=help_text, **kwargs)


def _mean(help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(
        max_digits=10, decimal_places=4, allow_null=True, help_text=help_text
    )


class SideSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The side's name: a username, or “Dealer”.")
    seat = serializers.IntegerField(help_text="Seat number: 0 opened the table, 1 is the other.")
    cards = _cards("The seven cards dealt, as codes (“As”, “Td”, “JK”).")
    front = _cards("The two cards locked in front.")
    back = _cards("The five cards locked in back.")
    front_name = serializers.CharField(help_text="The front hand, in words.")
    back_name = serializers.CharField(help_text="The back hand, in words.")
    foul = serializers.BooleanField(help_text="Whether this setting was a foul.")


class HouseWaySerializer(serializers.Serializer):
    front = _cards("The house way's front for the player's seven cards.")
    back = _cards("The house way's back.")
    front_name = serializers.CharField(help_text="The house way's front, in words.")
    back_name = serializers.CharField(help_text="The house way's back, in words.")
    row = serializers.CharField(help_text="The house-way row that decided the setting.")
    followed = serializers.BooleanField(
        help_text="Whether the player locked the house-way setting."
    )


class PartsSerializer(serializers.Serializer):
    front = FrontField(help_text="Front against the other front.")
    back = BackField(help_text="Back against the other back.")


class LedgerSerializer(serializers.Serializer):
    delta = _money("Chips this deal moved in this ledger.")
    balance = _money("The balance after this deal.")


class LedgersSerializer(serializers.Serializer):
    actual = LedgerSerializer(help_text="The actual ledger: no commission.")
    with_5 = LedgerSerializer(help_text="The “with 5%” what-if ledger.")


class LuckSerializer(serializers.Serializer):
    status = LuckStatusField(
        help_text="“pending” until the player's device has recorded the estimate.",
    )
    value = serializers.FloatField(allow_null=True, help_text="Luck, 1 to 10.")
    low = serializers.FloatField(allow_null=True, help_text="The 95% interval's low end.")
    high = serializers.FloatField(allow_null=True, help_text="The 95% interval's high end.")
    # The answer's field is "label" (the stubs type a field's own label there).
    label = serializers.CharField(  # type: ignore[assignment]
        help_text="As shown, e.g. “Luck 5.1 (4.6–5.6)”, or “pending”."
    )
    wins = serializers.IntegerField(
        allow_null=True, help_text=f"Wins among the {LUCK_SAMPLES} samples."
    )
    pushes = serializers.IntegerField(allow_null=True, help_text="Pushes among the samples.")
    losses = serializers.IntegerField(allow_null=True, help_text="Losses among the samples.")


def _loss(help_text: str, **kwargs: Any) -> serializers.DecimalField:
    return serializers.DecimalField(
        max_digits=12, decimal_places=9, allow_null=True, help_text=help_text, **kwargs
    )


class CostSerializer(serializers.Serializer):
    status = CostStatusField(
        help_text=(
            "“pending” until the background estimate is in; “sampled” over `opponents` "
            f"opponents; “exact” over all {EXACT_OPPONENTS:,}."
        ),
    )
    loss = _loss(
        "Decision cost: the expected score (win 1, push 0.5, loss 0) your setting gave up "
        "against the best of the 21 settings over the same opponents; 0 at the best."
    )
    at_best = serializers.BooleanField(
        allow_null=True,
        help_text=(
            "Whether you set the best setting (or, while sampled, one tied with it: the 95% "
            "interval of the difference includes 0)."
        ),
    )
    best_front = _cards("The best setting's front (empty while pending).")
    best_front_name = serializers.CharField(help_text="The best setting's front, in words.")
    opponents = serializers.IntegerField(
        allow_null=True, help_text="How many opponents the figure is over."
    )
    computed_at = serializers.DateTimeField(allow_null=True, help_text="When it was computed.")


class CostSummarySerializer(serializers.Serializer):
    hands = serializers.IntegerField(help_text="Revealed deals with a decision cost.")
    pending = serializers.IntegerField(help_text="Revealed deals whose cost is still pending.")
    exact = serializers.IntegerField(help_text="Of those with a cost, how many are exact.")
    at_best = serializers.IntegerField(help_text="Deals set at the best setting.")
    at_best_share = serializers.DecimalField(
        max_digits=5, decimal_places=4, allow_null=True,
        help_text="The share of deals with a cost set at the best (0 to 1); null without any.",
    )
    loss_sum = serializers.DecimalField(
        max_digits=18, decimal_places=6, help_text="Expected score given up, summed."
    )
    loss_mean = serializers.DecimalField(
        max_digits=10, decimal_places=6, allow_null=True,
        help_text="The average loss per deal with a cost; null without any.",
    )


class DecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The deal's id (its replay: /history/deals/{id}/).")
    table = serializers.IntegerField(help_text="The table it was played at.")
    mode = ModeField(help_text="solo or friend.")
    deal_number = serializers.IntegerField(help_text="The deal's number at its table.")
    revealed_at = serializers.DateTimeField(help_text="When it was revealed.")
    front = _cards("Your front.")
    back = _cards("Your back.")
    foul = serializers.BooleanField(help_text="Whether your setting was a foul.")
    cost = CostSerializer(help_text="What it gave up against the best setting.")


class WorstRowSerializer(serializers.Serializer):
    row = serializers.CharField(help_text="The house-way row of the cards.")
    decisions = DecisionSerializer(many=True, help_text="The worst decisions of the row.")


class HandSerializer(serializers.Serializer):
    id = serializers.IntegerField(
        help_text="The deal's id (the same for both sides of a friend table)."
    )
    table = serializers.IntegerField(help_text="The table (session) the deal was played at.")
    mode = ModeField(help_text="solo (against the dealer) or friend.")
    deal_number = serializers.IntegerField(help_text="The deal's number at its table.")
    dealt_at = serializers.DateTimeField(help_text="When the cards were dealt.")
    revealed_at = serializers.DateTimeField(help_text="When both settings were revealed.")
    stake = serializers.IntegerField(help_text="The agreed stake, in chips.")
    you = SideSerializer(help_text="The signed-in player's side.")
    other = SideSerializer(help_text="The other side, shown because the deal is revealed.")
    house_way = HouseWaySerializer(help_text="The house way for the player's cards.")
    parts = PartsSerializer(help_text="Each part's comparison, before foul and copy rules.")
    result = ResultField(help_text="The outcome for the player.")
    score = _skill("1 for a win, 0.5 for a push, 0 for a loss.")
    ledgers = LedgersSerializer(help_text="Both ledgers' deltas and balances.")
    luck = LuckSerializer(help_text="Luck with its interval, or pending.")
    skill = _skill("Decision skill: −1, −0.5, 0, 0.5 or 1.")
    cost = CostSerializer(help_text="Decision cost: what your setting gave up against the best.")


class SettlementSerializer(serializers.Serializer):
    result = ResultField(help_text="The result of this setting.")
    front = FrontField(help_text="Front against the other front.")
    back = BackField(help_text="Back against the other back.")
    foul = serializers.BooleanField(help_text="Whether this setting is a foul.")
    score = _skill("1 win, 0.5 push, 0 loss.")


class SkillDetailSerializer(serializers.Serializer):
    actual = SettlementSerializer(
        help_text="The locked setting against the other side's locked setting."
    )
    house_way = SettlementSerializer(
        help_text="The house-way setting against the same opponent setting."
    )
    difference = _skill("Decision skill: the actual score minus the house-way score.")


class HandDetailSerializer(HandSerializer):
    skill_detail = SkillDetailSerializer(help_text="The skill spelled out.")


class PairSerializer(serializers.Serializer):
    you = serializers.IntegerField(help_text="Your side.")
    other = serializers.IntegerField(allow_null=True, help_text="The other side.")


class MoneyPairSerializer(serializers.Serializer):
    you = _money("Your side.")
    other = _money("The other side.")


class SessionSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The table's id.")
    mode = ModeField(help_text="solo or friend.")
    status = serializers.CharField(help_text="waiting, betting, playing or finished.")
    opponent = serializers.CharField(help_text="The other side: “Dealer” or a username.")
    deals_played = serializers.IntegerField(help_text="Revealed deals at this table.")
    luck_average = serializers.DecimalField(
        max_digits=8, decimal_places=3, allow_null=True,
        help_text="Mean luck over completed estimates only; null when there are none.",
    )
    luck_completed = serializers.IntegerField(help_text="How many luck estimates completed.")
    luck_pending = serializers.IntegerField(help_text="Revealed deals whose luck is pending.")
    skill_total = _skill("Decision skill summed over every revealed deal.")
    skill_mean = _mean("Skill total per revealed deal; null before the first.")
    cost = CostSummarySerializer(help_text="Decision cost over the session's deals.")
    stacks = PairSerializer(help_text="Both stacks now (the actual ledger).")
    with_5 = MoneyPairSerializer(help_text="Both “with 5%” balances now.")
    starting_stack = serializers.IntegerField(help_text="Chips each side started with.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="The first deal.")
    ended_at = serializers.DateTimeField(
        allow_null=True, help_text="The latest reveal (null before the first)."
    )


class SeriesPointSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The deal's id.")
    deal_number = serializers.IntegerField(help_text="The deal's number at the table.")
    stake = serializers.IntegerField(help_text="The stake.")
    result = ResultField(help_text="The outcome for you.")
    score = _skill("1 win, 0.5 push, 0 loss.")
    skill = _skill("Decision skill.")
    luck = serializers.FloatField(allow_null=True, help_text="Luck, or null while pending.")
    loss = _loss("Decision cost of the deal, or null while pending.")
    actual_balance = _money("Your actual balance after the deal.")
    with_5_balance = _money("Your “with 5%” balance after the deal.")


class SessionDetailSerializer(SessionSerializer):
    series = SeriesPointSerializer(many=True, help_text="Every revealed deal, in order.")
    worst = WorstRowSerializer(
        many=True, help_text="The decisions that gave up most, to review, by house-way row."
    )


class SkillBucketSerializer(serializers.Serializer):
    deals = serializers.IntegerField(help_text="Revealed deals.")
    departures = serializers.IntegerField(help_text="Deals where you left the house way.")
    skill_sum = _skill("Decision skill summed.")
    skill_mean = _mean("Skill per deal; null without deals.")
    cost = CostSummarySerializer(help_text="Decision cost over these deals.")


class SkillByRowSerializer(SkillBucketSerializer):
    row = serializers.CharField(help_text="The house-way row of your cards.")


class SkillByModeSerializer(SkillBucketSerializer):
    mode = ModeField(help_text="solo or friend.")


class SkillByDaySerializer(SkillBucketSerializer):
    date = serializers.DateField(help_text="The day of the reveals (UTC).")
    cumulative = _skill("Skill summed up to and including this day.")


class SkillReportSerializer(serializers.Serializer):
    total = SkillBucketSerializer(help_text="Every revealed deal that matches the filters.")
    by_row = SkillByRowSerializer(many=True, help_text="By house-way row, most played first.")
    by_mode = SkillByModeSerializer(many=True, help_text="By table mode.")
    over_time = SkillByDaySerializer(many=True, help_text="By day, oldest first.")
    worst = WorstRowSerializer(
        many=True, help_text="The decisions that gave up most, to review, by house-way row."
    )


class RecordLineSerializer(serializers.Serializer):
    deals = serializers.IntegerField(help_text="Revealed deals.")
    tables = serializers.IntegerField(help_text="Tables (sessions) with a revealed deal.")
    wins = serializers.IntegerField(help_text="Deals won.")
    pushes = serializers.IntegerField(help_text="Deals pushed.")
    losses = serializers.IntegerField(help_text="Deals lost.")
    net_actual = _money("Chips won less chips lost, in the actual ledger (no commission).")
    net_with_5 = _money("The same in the “with 5%” what-if ledger (wins less 5%).")
    luck_average = serializers.DecimalField(
        max_digits=8, decimal_places=3, allow_null=True,
        help_text="Mean luck over completed estimates only, to three places; null without one.",
    )
    luck_shown = serializers.CharField(
        allow_null=True,
        help_text="The luck average as the pages show it: one decimal, rounded half up "
        "from the exact mean (e.g. “5.4”); null without an estimate.",
    )
    luck_completed = serializers.IntegerField(help_text="Deals with a completed luck estimate.")
    luck_pending = serializers.IntegerField(help_text="Revealed deals whose luck is pending.")
    skill_total = _skill("Decision skill summed over every revealed deal.")
    skill_mean = _mean("Skill total per revealed deal; null before the first.")
    departures = serializers.IntegerField(help_text="Deals where you left the house way.")
    cost = CostSummarySerializer(
        help_text="Decision cost: what your settings gave up against the best, per decision."
    )


class RecordByModeSerializer(RecordLineSerializer):
    mode = ModeField(help_text="solo or friend.")


class PracticeSummarySerializer(serializers.Serializer):
    hands = serializers.IntegerField(help_text="Practice hands locked.")
    at_best = serializers.IntegerField(help_text="Of those, set at the best setting.")
    accuracy = serializers.FloatField(
        allow_null=True, help_text="at_best / hands (0 to 1); null before the first hand."
    )
    average_loss = serializers.FloatField(
        allow_null=True,
        help_text="Expected score given up against the best setting, per hand; "
        "null before the first hand.",
    )


def _given_up(help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=18, decimal_places=9, help_text=help_text)


class ProgressSeriesSerializer(serializers.Serializer):
    decision = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Each point's decision number among your exactly costed decisions, "
        "in order of reveal (the latest 300 at most).",
    )
    yours = serializers.ListField(
        child=serializers.FloatField(),
        help_text="At each, your mean decision cost over the last `window` decisions.",
    )
    house = serializers.ListField(
        child=serializers.FloatField(),
        help_text="At each, the house way's mean loss over the same decisions' hands.",
    )


class ProgressLatestSerializer(serializers.Serializer):
    decisions = serializers.IntegerField(help_text="How many decisions the means cover.")
    yours = serializers.CharField(help_text="Your mean as the page shows it (three decimals).")
    house = serializers.CharField(help_text="The house way's mean on the same hands, likewise.")


class ProgressRowSerializer(serializers.Serializer):
    row = serializers.CharField(help_text="The house-way row of your cards (its id).")
    words = serializers.CharField(help_text="The row in words, as the rules page says it.")
    hands = serializers.IntegerField(help_text="Exactly costed hands of this row.")
    loss_sum = _given_up("What your settings gave up, summed.")
    loss_mean = _given_up("What your settings gave up, per hand.")
    house_loss_sum = _given_up("What the house way gives up on the same hands, summed.")
    house_loss_mean = _given_up("What the house way gives up on the same hands, per hand.")
    sentence = serializers.CharField(help_text="The comparison as the record page says it.")


class ProgressSerializer(serializers.Serializer):
    window = serializers.IntegerField(help_text="Decisions each rolling mean covers (50).")
    exact = serializers.IntegerField(
        help_text="Revealed deals with an exact decision cost and the house way's loss."
    )
    pending = serializers.IntegerField(
        help_text="Revealed deals still being costed exactly, left out until then."
    )
    series = ProgressSeriesSerializer(help_text="The rolling means, oldest first.")
    latest = ProgressLatestSerializer(
        allow_null=True, help_text="The means at the latest decision; null before the first."
    )
    by_row = ProgressRowSerializer(many=True, help_text="By house-way row, most played first.")


class RecordSerializer(serializers.Serializer):
    total = RecordLineSerializer(help_text="Every revealed deal at every table of yours.")
    by_mode = RecordByModeSerializer(
        many=True, help_text="Solo, then friend tables; a kind not played is left out."
    )
    practice = PracticeSummarySerializer(
        help_text="The practice table: no stake and no ledger, so apart from the tables."
    )
    progress = ProgressSerializer(
        help_text="Decision cost over time (what your settings gave up against the best "
        "setting, exact figures only; lower is better) beside the house way's on the "
        "same hands."
    )


class EndpointSerializer(serializers.Serializer):
    url = serializers.CharField(
        help_text="The endpoint's absolute URL ({id} stands for a deal's or table's id)."
    )
    description = serializers.CharField(help_text="What it answers.")


class ApiRootSerializer(serializers.Serializer):
    endpoints = serializers.DictField(
        child=EndpointSerializer(), help_text="Each endpoint by name."
    )
    authentication = serializers.CharField(help_text="How a script signs in.")


ReadyField = _choice(["ready"], "exact-ready")
PendingField = _choice(["pending"], "exact-pending")


class ExactSettingSerializer(serializers.Serializer):
    front = serializers.CharField(help_text="The two front cards, codes joined by a space.")
    back = serializers.CharField(help_text="The five back cards, codes joined by a space.")
    front_name = serializers.CharField(help_text="The front's hand name.")
    back_name = serializers.CharField(help_text="The back's hand name.")
    foul = serializers.BooleanField(help_text="True when the front beats the back (a foul).")
    wins = serializers.IntegerField(help_text="Opponent hands this setting beats.")
    pushes = serializers.IntegerField(help_text="Opponent hands it pushes with.")
    losses = serializers.IntegerField(help_text="Opponent hands it loses to.")
    expected = serializers.FloatField(
        help_text="Expected score: (wins + pushes / 2) / opponents (win 1, push ½, loss 0)."
    )
    house_way = serializers.BooleanField(help_text="True on the house way's setting.")


class ExactReadySerializer(serializers.Serializer):
    status = ReadyField(help_text="“ready”: the exact figures are below.")
    opponents = serializers.IntegerField(
        help_text="Every opponent hand the other 46 cards allow: C(46, 7) = 53,524,680."
    )
    settings = ExactSettingSerializer(
        many=True, help_text="The 21 settings, best first (equal scores: the house way first)."
    )


class ExactPendingSerializer(serializers.Serializer):
    status = PendingField(help_text="“pending”: the analysis is queued; ask again shortly.")
    detail = serializers.CharField(help_text="What is happening, in a sentence.")


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="The error's code, e.g. “not_found”.")
    detail = serializers.CharField(help_text="What went wrong, in a sentence.")
