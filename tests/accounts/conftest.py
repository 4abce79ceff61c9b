"""The e-mail limits' counts of one test never reach another (as conftest.py
does for the password and sign-up limits)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import _fresh


@pytest.fixture(autouse=True)
def fresh_mail_limits(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from accounts import limits

    return {
        name: _fresh(limits, name, monkeypatch)
        for name in ("PASSWORD_RESETS", "VERIFICATION_MAILS")
    }
