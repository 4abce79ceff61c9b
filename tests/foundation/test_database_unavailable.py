"""A page or an API call the database cannot answer in time gets a 503 with
a sentence and Retry-After, never a 500 (issue 43): the pool lent no
connection within ``DB_POOL_TIMEOUT_SECONDS``, or PostgreSQL is down."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import OperationalError, connection
from django.test import Client

from paigow_site.unavailable import RETRY_AFTER_SECONDS, UNAVAILABLE_SENTENCE

pytestmark = pytest.mark.django_db(transaction=True)


def client() -> Client:
    # As a server answers: the handler's response, not the exception re-raised.
    return Client(raise_request_exception=False)


@pytest.fixture
def session_read_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every session read fails as a pool that lent nothing in time fails."""

    def load(self: Any) -> Any:
        raise OperationalError("couldn't get a connection after 5.00 sec")

    monkeypatch.setattr(SessionStore, "load", load)


def test_a_page_whose_session_read_times_out_answers_503(session_read_fails: None) -> None:
    browser = client()
    browser.cookies["sessionid"] = "made-up-session-key"
    response = browser.get("/history/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert UNAVAILABLE_SENTENCE in response.content.decode()


def test_an_api_call_whose_session_read_times_out_answers_503_in_the_api_s_shape(
    session_read_fails: None,
) -> None:
    browser = client()
    browser.cookies["sessionid"] = "made-up-session-key"
    response = browser.get("/api/hands/", HTTP_ACCEPT="application/json")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response.json() == {"error": "unavailable", "detail": UNAVAILABLE_SENTENCE}


def test_any_other_error_is_still_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    def load(self: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(SessionStore, "load", load)
    browser = client()
    browser.cookies["sessionid"] = "made-up-session-key"
    assert browser.get("/history/").status_code == 500


@pytest.fixture
def exhausted_pool() -> Iterator[Any]:
    """Every connection of the process's pool lent, and a short wait for one."""
    pool = getattr(connection, "pool", None)  # PostgreSQL only
    if pool is None:
        pytest.skip("no connection pool (SQLite)")
    connection.close()  # the test's own goes back first
    pool.open()
    held = []
    waited, pool.timeout = pool.timeout, 0.3
    try:
        while len(held) < pool.max_size:
            held.append(pool.getconn())
        yield pool
    finally:
        pool.timeout = waited
        for conn in held:
            pool.putconn(conn)
        connection.close_pool()  # the next test gets a pool as a process starts it


def test_a_page_that_finds_the_pool_empty_waits_then_answers_503(exhausted_pool: Any) -> None:
    browser = client()
    browser.cookies["sessionid"] = "made-up-session-key"
    response = browser.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert UNAVAILABLE_SENTENCE in response.content.decode()
