"""The API's answer without valid credentials: 401 with ``WWW-Authenticate:
Token`` (HTTP's convention and DRF's), in the ``{"error", "detail"}`` shape;
never a 500, whatever bytes the header holds. A signed-in player who may not
do something still gets 403."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts import tokens

pytestmark = pytest.mark.django_db


def assert_401(answer: Any, error: str) -> None:
    assert answer.status_code == 401, answer.content
    assert answer["WWW-Authenticate"] == "Token"
    body = answer.json()
    assert body["error"] == error
    assert body["detail"].endswith("."), body


@pytest.mark.parametrize("path", ["/api/hands/", "/api/tables/", "/api/reports/skill/",
                                  "/api/record/"])
def test_no_credentials_is_401_with_the_scheme_to_use(path: str) -> None:
    assert_401(Client().get(path), "not_authenticated")


@pytest.mark.parametrize("header", [
    "Token nope",
    "Token pgl_" + "0" * 64,
    "Token",  # no token at all
    "Token pgl_a pgl_b",  # a space in it
    "Token pgl_\xff\xfe",  # raw bytes: knox's UTF-8 decode raised, a 500
    "Token \xe9\xe9\xe9",
    "token " + "pgl_" + "f" * 200,
])
def test_a_bad_token_is_401_never_500(header: str) -> None:
    answer = Client(HTTP_AUTHORIZATION=header).get("/api/hands/")
    assert_401(answer, "authentication_failed")


def test_a_revoked_token_says_what_to_do(player: Any) -> None:
    instance, token = tokens.token_create(user=player)
    tokens.token_revoke(user=player, token_key=instance.token_key)
    answer = Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/hands/")
    assert_401(answer, "authentication_failed")
    assert "Make a new one on your account page" in answer.json()["detail"]


def test_a_good_token_and_a_session_still_open_the_api(player: Any) -> None:
    _, token = tokens.token_create(user=player)
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/hands/").status_code == 200
    client = Client()
    client.force_login(player)
    assert client.get("/api/hands/").status_code == 200


def test_a_signed_in_post_without_csrf_is_still_403(player: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    answer = client.post("/api/tables/1/deals/1/exact/")
    assert answer.status_code == 403
    assert "WWW-Authenticate" not in answer
