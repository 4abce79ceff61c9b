"""``{% card_faces_url %}``: the URL of the optional face pack, or "" without one."""

from __future__ import annotations

from django import template
from django.urls import reverse

from games.faces import faces_dir

register = template.Library()


@register.simple_tag
def card_faces_url() -> str:
    if faces_dir() is None:
        return ""
    return reverse("games:face", kwargs={"name": "back.png"}).removesuffix("back.png")
