"""Card faces for the review pages: the rank and a coloured suit symbol, with
the card's name for screen readers, in the table's order (``engine.by_rank``:
ranks together, high to low). js/history-faces.mjs then draws the table's own
faces (built-in SVG or the chosen picture pack) over them; the text faces
remain the no-script fallback. And the words pages use for what the API and
the CSV keep as ids: a house-way row's."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.utils.html import format_html, format_html_join

from games import engine
from games.history.selectors import card_face

register = template.Library()


@register.filter
def card_faces(codes: Iterable[str] | str) -> str:
    """``{{ hand.front|card_faces }}``: a row of small card faces, ranks
    together from high to low as the table shows a hand."""
    if isinstance(codes, str):
        codes = codes.split()
    codes = engine.by_rank(codes)
    faces = [card_face(code) for code in codes]
    return format_html(
        '<span class="mini-cards">{}</span>',
        format_html_join(
            "",
            '<span class="mini-card{}" role="img" aria-label="{}" title="{}" data-card="{}">'
            '<span class="rank">{}</span><span class="suit">{}</span></span>',
            (
                (" red" if f["red"] else (" joker" if f["joker"] else ""),
                 f["name"], f["name"], code, f["rank"], f["suit"])
                for code, f in zip(codes, faces, strict=True)
            ),
        ),
    )


@register.filter
def row_words(row: str) -> str:
    """A house-way row's id in words: ``{{ r.house_way.row|row_words }}``.

    >>> row_words("two-pair-keep")
    'Two pair, kept together'
    """
    return engine.row_words(row)


MINUS = "\u2212"


@register.filter
def minus(value: object) -> str:
    """A number as shown on a page, with the proper minus sign (U+2212) where
    it is negative: ``{{ skill|minus }}``, ``{{ mean|floatformat:3|minus }}``.
    The CSV and the API keep ASCII's hyphen-minus.

    >>> minus("-0.09"), minus(1.5), minus(None)
    ('−0.09', '1.5', 'None')
    """
    text = str(value)
    if text.startswith("-") and text[1:2].isdigit():
        return MINUS + text[1:]
    return text


@register.filter
def signed(value: object) -> str:
    """A number with its sign: +20.00, −20.00, 0.00."""
    text = str(value)
    if text.startswith("-"):
        return minus(text)
    try:
        positive = float(text) > 0
    except ValueError:
        return text
    return f"+{text}" if positive else text


@register.filter
def percent(value: object) -> str:
    """A share from 0 to 1 as a whole percentage, rounded half up:
    ``{{ share|percent }}``.

    >>> percent("0.8333"), percent(1), percent("0.0050")
    ('83%', '100%', '1%')
    """
    share = Decimal(str(value)) * 100
    return f"{share.quantize(Decimal(1), rounding=ROUND_HALF_UP)}%"


@register.filter
def thousands(value: object) -> str:
    """A whole number with thousands separated by commas: 10,000.

    >>> thousands(10000), thousands(53524680)
    ('10,000', '53,524,680')
    """
    return f"{int(str(value)):,}"
