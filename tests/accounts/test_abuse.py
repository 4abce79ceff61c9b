"""Forms under bad input and abuse: sign-up, sign-in and the stake form never
crash and answer with a clear sentence; sign-up is limited per address; every
form needs its CSRF token; invite tokens never reach the logs."""

from __future__ import annotations

import io
import logging
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from accounts import limits
from accounts.models import User
from paigow_site.logfilters import RedactInviteTokens, redact

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase 1"
POSTED = {"forms": 0}


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def fresh_address() -> str:
    return f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"


def test_sign_up_is_limited_per_address_with_a_clear_sentence(client: Client) -> None:
    address = fresh_address()
    for n in range(limits.SIGN_UPS_PER_ADDRESS):
        response = client.post(
            "/accounts/sign-up/",
            {"username": f"m{n}{uuid.uuid4().hex[:6]}", "password1": PASSWORD,
             "password2": PASSWORD},
            REMOTE_ADDR=address,
        )
        assert response.status_code == 302
        client.post("/accounts/sign-out/")
    name = f"late{uuid.uuid4().hex[:6]}"
    response = client.post(
        "/accounts/sign-up/", {"username": name, "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR=address,
    )
    assert response.status_code == 429
    assert "Too many sign-ups from your address. Try again in 15 minutes." in (
        response.content.decode()
    )
    assert not User.objects.filter(username=name).exists()
    # Another address is not affected.
    other = client.post(
        "/accounts/sign-up/", {"username": name, "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR=fresh_address(),
    )
    assert other.status_code == 302


def test_refused_sign_ups_count_too(client: Client) -> None:
    address = fresh_address()
    for _ in range(limits.SIGN_UPS_PER_ADDRESS):
        client.post("/accounts/sign-up/", {"username": "x", "password1": "1", "password2": "2"},
                    REMOTE_ADDR=address)
    response = client.post("/accounts/sign-up/", {"username": "ok_name"}, REMOTE_ADDR=address)
    assert response.status_code == 429


form_values = st.one_of(
    st.text(max_size=300), st.just(""), st.just("\x00"), st.text(min_size=2000, max_size=5000),
    st.sampled_from(["admin", "' OR 1=1 --", "<script>alert(1)</script>", "ﬀ", "..", "a" * 151]),
)


@hsettings(max_examples=60, deadline=None, database=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    username=form_values, password1=form_values, password2=form_values,
    extra=st.dictionaries(st.text(min_size=1, max_size=10), st.text(max_size=20), max_size=3),
)
def test_sign_up_and_sign_in_with_any_input_never_crash(
    username: str, password1: str, password2: str, extra: dict[str, str]
) -> None:
    client = Client()
    data = {**extra, "username": username, "password1": password1, "password2": password2}
    up = client.post("/accounts/sign-up/", data, REMOTE_ADDR=fresh_address())
    assert up.status_code in (200, 302), up.status_code
    if up.status_code == 200:
        assert b'class="errorlist' in up.content  # a sentence says what is wrong
    client.post("/accounts/sign-out/")
    inn = client.post("/accounts/sign-in/", {**extra, "username": username, "password": password1},
                      REMOTE_ADDR=fresh_address())
    assert inn.status_code in (200, 302), inn.status_code
    if inn.status_code == 200:
        assert b'class="errorlist' in inn.content
    POSTED["forms"] += 2


def test_a_bad_mode_or_a_bad_invite_token_is_a_clear_answer(client: Client) -> None:
    user = User.objects.create_user(username="ada", password=PASSWORD)
    client.force_login(user)
    assert client.post("/tables/new/casino/").status_code == 404
    for token in ("x", "a" * 500, "%00", "' OR 1=1 --", "ﬀ" * 30):
        response = client.get(f"/invite/{token}/")
        assert response.status_code == 404, token
        assert b"invite link is not valid" in response.content
    assert client.get("/invite/../../etc/passwd/").status_code == 404  # no such page


CSRF_FORMS = [
    ("/accounts/sign-up/", {"username": "eve", "password1": PASSWORD, "password2": PASSWORD}),
    ("/accounts/sign-in/", {"username": "ada", "password": PASSWORD}),
    ("/accounts/sign-out/", {}),
    ("/accounts/password/", {"old_password": PASSWORD, "new_password1": "x" * 20,
                             "new_password2": "x" * 20}),
    ("/tables/new/solo/", {}),
    ("/tables/new/friend/", {}),
]


@pytest.mark.parametrize(("path", "data"), CSRF_FORMS)
def test_every_form_needs_its_csrf_token(path: str, data: dict[str, str]) -> None:
    user = User.objects.create_user(username="ada", password=PASSWORD)
    client = Client(enforce_csrf_checks=True)
    if path != "/accounts/sign-in/" and path != "/accounts/sign-up/":
        client.force_login(user)
    response = client.post(path, data)
    assert response.status_code == 403, path
    assert User.objects.count() == 1
    assert not user.seats.exists()


def test_the_forms_carry_a_csrf_token(client: Client) -> None:
    for path in ("/accounts/sign-up/", "/accounts/sign-in/"):
        assert b'name="csrfmiddlewaretoken"' in client.get(path).content
    client.force_login(User.objects.create_user(username="ada", password=PASSWORD))
    for path in ("/lobby/", "/accounts/password/"):
        assert b'name="csrfmiddlewaretoken"' in client.get(path).content


# --- secrets in logs ----------------------------------------------------------------------


def test_every_log_handler_redacts_invite_tokens() -> None:
    handlers = settings.LOGGING["handlers"]
    assert all("redact_invites" in h.get("filters", []) for h in handlers.values())
    assert not settings.LOGGING["loggers"]["django"].get("propagate", True)
    assert redact("Not Found: /invite/abcDEF-_123/") == "Not Found: /invite/[redacted]/"
    assert redact("GET /invite/abc?x=1 410") == "GET /invite/[redacted]?x=1 410"


def test_a_refused_invite_link_is_logged_without_its_token(client: Client) -> None:
    configured = [
        h for h in logging.getLogger("django").handlers
        if any(isinstance(f, RedactInviteTokens) for f in h.filters)
    ]
    assert configured, "the django logger writes through the redacting handler"
    handler = configured[0]
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    old = handler.setStream(stream)
    try:
        client.force_login(User.objects.create_user(username="ada", password=PASSWORD))
        token = "S3cretTokenValue_" + uuid.uuid4().hex
        assert client.get(f"/invite/{token}/").status_code == 404
    finally:
        handler.setStream(old)
    written = stream.getvalue()
    assert "/invite/[redacted]/" in written
    assert token not in written
