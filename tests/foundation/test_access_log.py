"""No invite token reaches the server's output, its access log included.

daphne writes its access log itself, outside Python logging, so this starts
the real server the way production does (``paigow_site.server``, access log
on stdout) and plays an invite from both sides over HTTP: the host makes a
friend table, a signed-out friend opens the link (the browser asks for
``/invite/``; the page posts the token from after the "#"), signs up and
sits down. A link of the older form, with the token in the path, and a
sign-in URL that quotes one are requested too. Then the whole output is read.
"""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.live_site import embedded_env, live_site, migrate

# Its own embedded site in its own processes: the same on both backends.
pytestmark = [pytest.mark.slow, pytest.mark.own_environment]
PASSWORD = "a long pass phrase 1"


class Visitor:
    """A cookie jar, as a browser keeps one; answers are (final URL, status, body)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[str, int, str]:
        return self._open(path, None)

    def post(self, path: str, data: dict[str, str]) -> tuple[str, int, str]:
        csrf = next((c.value for c in self.jar if c.name == "csrftoken"), None)
        if csrf is None:  # a form page sets it first, as in a browser
            self.get("/accounts/sign-in/")
            csrf = next(c.value for c in self.jar if c.name == "csrftoken")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": csrf}).encode()
        return self._open(path, body)

    def _open(self, path: str, body: bytes | None) -> tuple[str, int, str]:
        try:
            with self.http.open(self.base + path, data=body, timeout=10) as response:
                return response.geturl(), response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.geturl(), error.code, error.read().decode()

    def sign_up(self, name: str, next_path: str = "") -> str:
        query = f"?next={next_path}" if next_path else ""
        url, status, _ = self.post(
            f"/accounts/sign-up/{query}",
            {"username": name, "password1": PASSWORD, "password2": PASSWORD, "next": next_path},
        )
        assert status == 200, (url, status)
        return url


def test_no_invite_token_reaches_the_server_output(tmp_path: Path) -> None:
    env = embedded_env(tmp_path / "var", PYTHONUNBUFFERED="1")
    migrate(env)
    log = tmp_path / "server.log"
    with live_site(env, log_path=log) as base:
        host = Visitor(base)
        host.sign_up("ada")
        table_url, status, page = host.post("/tables/new/friend/", {})
        assert status == 200
        assert re.search(r"/tables/\d+/$", table_url)
        token = re.search(r"/invite/#([\w-]+)", page).group(1)  # type: ignore[union-attr]

        friend = Visitor(base)
        url, status, page = friend.get("/invite/")  # what the browser sends for /invite/#token
        assert status == 200
        assert 'id="join-form"' in page
        url, status, _ = friend.post("/invite/", {"token": token})  # the page's script
        assert url.endswith("/accounts/sign-in/?next=/invite/"), url
        assert friend.sign_up("grace", next_path="/invite/") == table_url
        table_path = urllib.parse.urlsplit(table_url).path
        assert friend.get(table_path)[1] == 200

        # Token-in-path forms someone might still send: all refused, all logged.
        third = Visitor(base)
        third.sign_up("eve")
        assert third.get(f"/invite/{token}/")[1] == 409
        assert third.get(f"/invite/{token[::-1]}/")[1] == 404
        assert Visitor(base).get(f"/accounts/sign-in/?next=/invite/{token}/")[1] == 200
        quoted = urllib.parse.quote(f"/invite/{token}/", safe="")
        assert Visitor(base).get(f"/accounts/sign-in/?next={quoted}")[1] == 200
    output = log.read_text(errors="replace")
    # The access log was on and saw the whole flow ...
    assert re.search(r'"POST /invite/" 302', output), output[-2000:]
    assert f'"GET {table_path}" 200' in output
    assert '"GET /invite/[redacted]/" 409' in output
    # ... and no token, in any form, is anywhere in it.
    for secret in (token, token[::-1]):
        assert secret not in output
    assert "%2Finvite%2F[redacted]%2F" in output
