"""One limit for every form that checks a password (sign-in, the admin's
sign-in, both password changes), and a limit no one can turn against the owner.

The rule (accounts.limits): a client showing the device cookie that a right
password for that very account issued is judged by its own count only (5
wrong tries); any other client is refused for an account after 5 wrong tries
for it from its address, after 20 wrong tries for it from all untrusted
clients together, or after 20 wrong tries from its address for any accounts;
all over a 15-minute window.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

from accounts import limits
from accounts.models import User

pytestmark = pytest.mark.django_db
PASSWORD = "a long pass phrase 1"
NEW_PASSWORD = "another long phrase 2"
WRONG_OLD = "Your old password was entered incorrectly"


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def new_address() -> str:
    return f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"


def new_user(**extra: Any) -> User:
    return User.objects.create_user(
        username=f"u{uuid.uuid4().hex[:10]}", password=PASSWORD, **extra
    )


def sign_in(client: Client, username: str, password: str, address: str) -> str:
    response = client.post(
        "/accounts/sign-in/", {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return "signed-in" if response.status_code == 302 else response.content.decode()


def admin_sign_in(client: Client, username: str, password: str, address: str) -> str:
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )
    return "signed-in" if response.status_code == 302 else response.content.decode()


def change_password(
    client: Client, old: str, address: str, url: str = "/accounts/password/"
) -> Any:
    return client.post(
        url,
        {"old_password": old, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
        REMOTE_ADDR=address,
    )


def is_signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


# --- One limit for every password form -----------------------------------------------------


def test_the_admin_sign_in_refuses_past_the_limit_even_with_the_right_password(
    client: Client,
) -> None:
    staff = new_user(is_staff=True, is_superuser=True)
    address = new_address()
    for _ in range(limits.LIMIT_PER_ACCOUNT_AND_ADDRESS):
        assert "Please enter the correct" in admin_sign_in(client, staff.username, "wrong", address)
    page = admin_sign_in(client, staff.username, PASSWORD, address)
    assert "Too many sign-in attempts. Try again in 15 minutes." in page
    assert not is_signed_in(client)
    assert client.get("/admin/").status_code == 302


def test_wrong_passwords_on_the_admin_and_on_sign_in_count_together(client: Client) -> None:
    address = new_address()
    first, second = new_user(is_staff=True), new_user(is_staff=True)
    for _ in range(3):
        admin_sign_in(client, first.username, "wrong", address)
    for _ in range(2):
        sign_in(client, first.username, "wrong", address)
    assert "Too many sign-in attempts" in sign_in(client, first.username, PASSWORD, address)
    for _ in range(3):
        sign_in(client, second.username, "wrong", address)
    for _ in range(2):
        admin_sign_in(client, second.username, "wrong", address)
    assert "Too many sign-in attempts" in admin_sign_in(client, second.username, PASSWORD, address)
    assert not is_signed_in(client)


def test_a_wrong_old_password_counts_and_password_change_is_refused_past_the_limit(
    client: Client,
) -> None:
    user, address = new_user(), new_address()
    client.force_login(user)
    for _ in range(limits.LIMIT_PER_ACCOUNT_AND_ADDRESS):
        assert WRONG_OLD in change_password(client, "wrong", address).content.decode()
    response = change_password(client, PASSWORD, address)
    assert response.status_code == 429
    assert "Too many wrong passwords. Try again in 15 minutes." in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    # The same count refuses sign-in from that address.
    client.logout()
    assert "Too many sign-in attempts" in sign_in(client, user.username, PASSWORD, address)


def test_the_admin_password_change_is_on_the_same_limit(client: Client) -> None:
    staff, address = new_user(is_staff=True), new_address()
    for _ in range(limits.LIMIT_PER_ACCOUNT_AND_ADDRESS - 1):
        sign_in(client, staff.username, "wrong", address)
    client.force_login(staff)
    url = "/admin/password_change/"
    assert WRONG_OLD in change_password(client, "wrong", address, url).content.decode()
    response = change_password(client, PASSWORD, address, url)
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    staff.refresh_from_db()
    assert staff.check_password(PASSWORD)


# --- The limit is not a weapon against the owner --------------------------------------------


def owners_device(user: User, address: str) -> Client:
    """The owner's browser: it signed in once (and got the device cookie), then signed out."""
    device = Client()
    assert sign_in(device, user.username, PASSWORD, address) == "signed-in"
    device.post("/accounts/sign-out/")
    assert limits.DEVICE_COOKIE in device.cookies
    return device


def test_many_addresses_cannot_lock_the_owners_device_out(client: Client) -> None:
    owner, home = new_user(), new_address()
    device = owners_device(owner, home)
    for n in range(limits.LIMIT_PER_ACCOUNT + 10):
        attacker = Client()
        sign_in(attacker, owner.username, f"guess {n}", new_address())
    # Untrusted clients are refused now, from anywhere, even with the password...
    assert "Too many sign-in attempts" in sign_in(Client(), owner.username, PASSWORD, home)
    # ...but the owner's device gets in, at home or anywhere else.
    assert sign_in(device, owner.username, PASSWORD, home) == "signed-in"
    device.post("/accounts/sign-out/")
    assert sign_in(device, owner.username, PASSWORD, new_address()) == "signed-in"


def test_a_few_bad_tries_from_one_address_do_not_lock_the_owner_out_elsewhere(
    client: Client,
) -> None:
    owner = new_user()
    attacker_address = new_address()
    for _ in range(limits.LIMIT_PER_ACCOUNT_AND_ADDRESS):
        sign_in(client, owner.username, "wrong", attacker_address)
    assert "Too many sign-in attempts" in sign_in(
        client, owner.username, PASSWORD, attacker_address
    )
    assert sign_in(Client(), owner.username, PASSWORD, new_address()) == "signed-in"


def test_a_device_cookie_vouches_only_for_its_own_account(client: Client) -> None:
    mallory, victim, address = new_user(), new_user(), new_address()
    assert sign_in(client, mallory.username, PASSWORD, address) == "signed-in"
    client.post("/accounts/sign-out/")
    for _ in range(limits.LIMIT_PER_ACCOUNT_AND_ADDRESS):
        sign_in(client, victim.username, "wrong", address)
    assert "Too many sign-in attempts" in sign_in(client, victim.username, PASSWORD, address)
    # A forged cookie is no cookie.
    forged = Client()
    forged.cookies[limits.DEVICE_COOKIE] = f"{victim.username}:0123"
    assert "Too many sign-in attempts" in sign_in(forged, victim.username, PASSWORD, address)
    # Signing in to her own account again does not wipe the count on the victim.
    assert sign_in(client, mallory.username, PASSWORD, address) == "signed-in"
    client.post("/accounts/sign-out/")
    assert "Too many sign-in attempts" in sign_in(client, victim.username, PASSWORD, address)
    # And the victim, elsewhere, is not locked out.
    assert sign_in(Client(), victim.username, PASSWORD, new_address()) == "signed-in"


def test_a_trusted_device_has_a_limit_of_its_own(client: Client) -> None:
    owner, home = new_user(), new_address()
    device = owners_device(owner, home)
    for _ in range(limits.LIMIT_PER_DEVICE):
        sign_in(device, owner.username, "wrong", home)
    assert "Too many sign-in attempts" in sign_in(device, owner.username, PASSWORD, home)
    # That device's tries are its own: the owner's other browser still gets in.
    assert sign_in(Client(), owner.username, PASSWORD, new_address()) == "signed-in"


def test_an_attacker_on_one_address_trying_many_accounts_is_slowed(client: Client) -> None:
    owner, address = new_user(), new_address()
    for n in range(limits.LIMIT_PER_ADDRESS):
        sign_in(client, f"{owner.username}x{n}", "wrong", address)
    assert "Too many sign-in attempts" in sign_in(client, owner.username, PASSWORD, address)
    assert client.post(
        "/accounts/sign-in/", {"username": owner.username, "password": PASSWORD},
        REMOTE_ADDR=address,
    ).status_code == 429
