"""Join tokens (issue 4): "Tokens are signed with the server secret and expire. The role
comes from the token, never from a message field."

Forged tokens are built the way an attacker would: from a genuine token's claims,
re-encoded by hand or with PyJWT under another key or algorithm.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from typing import Any

import jwt
import pytest
from jwt.warnings import InsecureKeyLengthWarning

import server.engine.rulesets.verse  # noqa: F401  (registers the Verse commands)
from protocol.errors import CloseCode, ErrorCode
from server.engine.authority import Principal, Role, authorize, may_issue
from server.engine.errors import FORBIDDEN, CommandRefused
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.overrides import RemoveCombatant
from server.gateway.tokens import (
    AUDIENCE,
    Grant,
    TokenError,
    TokenIssuer,
    load_or_create_secret,
)

SECRET = b"s" * 16 + b"e" * 16  # exactly 32 bytes: the shortest accepted
OTHER_KEY = b"attacker-chosen-key-of-32-bytes!"
START = 1_700_000_000
TTL = 3600


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def issuer(clock: Clock | None = None, secret: bytes = SECRET) -> TokenIssuer:
    return TokenIssuer(secret, clock=clock or Clock(), ttl_seconds=TTL)


def claims_of(token: str) -> dict[str, Any]:
    """A token's claims as anyone can read them (no key needed)."""
    payload = token.split(".")[1]
    padded = payload + "=" * (-len(payload) % 4)
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(padded))
    return decoded


def b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def refused(tokens: TokenIssuer, token: object, room_id: str | None = None) -> TokenError:
    with pytest.raises(TokenError) as error:
        tokens.verify(token, room_id)
    return error.value


def assert_unauthorized(tokens: TokenIssuer, token: object, room_id: str | None = None) -> None:
    error = refused(tokens, token, room_id)
    assert error.code == ErrorCode.UNAUTHORIZED
    assert error.close_code == CloseCode.UNAUTHORIZED
    if isinstance(token, str) and token:
        assert token not in str(error)
    assert SECRET.decode() not in str(error)


# -- round trips -----------------------------------------------------------------------


def test_a_gm_token_round_trips_to_the_gm_principal() -> None:
    tokens = issuer()
    grant = tokens.verify(tokens.issue("room-1", "gm", seat="gm"), "room-1")
    assert (grant.room_id, grant.role, grant.seat, grant.controls) == ("room-1", Role.GM, "gm", ())
    assert grant.expires_at == START + TTL
    assert grant.principal == Principal(Role.GM, (), "gm")


def test_a_player_token_round_trips_with_its_seat_and_combatants() -> None:
    tokens = issuer()
    token = tokens.issue("room-1", Role.PLAYER, seat="Ayla's seat", controls=["ayla", "horse"])
    grant = tokens.verify(token)
    assert grant.role == Role.PLAYER
    assert grant.seat == "Ayla's seat"
    assert grant.controls == ("ayla", "horse")
    assert grant.principal == Principal(Role.PLAYER, ("ayla", "horse"), "Ayla's seat")


def test_a_spectator_token_round_trips_to_a_spectator_that_can_send_nothing() -> None:
    tokens = issuer()
    grant = tokens.verify(tokens.issue("room-1", "spectator"), "room-1")
    assert grant.role == Role.SPECTATOR and grant.controls == ()
    assert grant.principal.name == "spectator"  # no seat: named by its role
    assert not may_issue(grant.principal, Attack("ayla", "gob"))


def test_the_claims_carry_room_role_seat_controls_times_id_and_audience() -> None:
    token = issuer().issue("room-1", "player", seat="north", controls=("ayla",))
    claims = claims_of(token)
    assert claims["aud"] == AUDIENCE == "verse-combat"
    assert claims["room"] == "room-1" and claims["role"] == "player"
    assert claims["seat"] == "north" and claims["controls"] == ["ayla"]
    assert (claims["iat"], claims["exp"]) == (START, START + TTL)
    assert isinstance(claims["jti"], str) and len(claims["jti"]) >= 16
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["alg"] == "HS256"


def test_every_token_has_its_own_id() -> None:
    tokens = issuer()
    ids = {tokens.verify(tokens.issue("room-1", "spectator")).token_id for _ in range(20)}
    assert len(ids) == 20


# -- seats -----------------------------------------------------------------------------


SEATS = {"north": ("ayla", "horse"), "south": ("bram",), "west": ("corvin",)}


def test_join_tokens_give_the_gm_one_token_per_seat_and_a_spectator() -> None:
    tokens = issuer()
    printed = tokens.join_tokens("room-1", SEATS)
    assert printed["room"] == "room-1"
    assert printed["expires_at"] == START + TTL
    assert tokens.verify(printed["gm"], "room-1").role == Role.GM
    assert tokens.verify(printed["spectator"], "room-1").role == Role.SPECTATOR
    assert sorted(printed["players"]) == ["north", "south", "west"]
    for seat, token in printed["players"].items():
        grant = tokens.verify(token, "room-1")
        assert (grant.role, grant.seat, grant.controls) == (Role.PLAYER, seat, SEATS[seat])
        assert grant.expires_at == printed["expires_at"]
    json.dumps(printed)  # printable as it is


def test_a_player_token_controls_exactly_its_seats_combatants() -> None:
    tokens = issuer()
    printed = tokens.join_tokens("room-1", SEATS)
    north = tokens.verify(printed["players"]["north"]).principal
    assert north.controls == ("ayla", "horse")
    assert may_issue(north, Attack("ayla", "bram")) and may_issue(north, Attack("horse", "bram"))
    assert not may_issue(north, Attack("bram", "ayla"))  # the south seat's combatant
    assert not may_issue(north, Attack("corvin", "ayla"))
    with pytest.raises(CommandRefused) as error:
        authorize(north, RemoveCombatant("bram"))  # a GM override
    assert error.value.code == FORBIDDEN
    authorize(tokens.verify(printed["gm"]).principal, RemoveCombatant("bram"))


def test_a_combatant_in_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="belongs to one seat"):
        issuer().join_tokens("room-1", {"north": ("ayla",), "south": ("bram", "ayla")})


@pytest.mark.parametrize(
    ("role", "seat", "controls"),
    [
        ("room", "", ()),  # the server's own role is never granted
        ("admin", "", ()),
        ("player", "north", ()),  # a player without combatants
        ("player", "", ("ayla",)),  # a player without a seat
        ("player", "north", ("ayla", "ayla")),
        ("player", "north", ("",)),
        ("gm", "gm", ("ayla",)),  # the GM controls no combatant: it needs none
        ("spectator", "", ("ayla",)),
    ],
)
def test_issuing_a_token_no_verifier_would_accept_is_refused(
    role: str, seat: str, controls: tuple[str, ...]
) -> None:
    with pytest.raises(ValueError):
        issuer().issue("room-1", role, seat=seat, controls=controls)


def test_a_token_for_no_room_is_refused() -> None:
    with pytest.raises(ValueError):
        issuer().issue("", "gm")


# -- expiry ----------------------------------------------------------------------------


def test_a_token_expires_after_its_ttl_on_the_injected_clock() -> None:
    clock = Clock()
    tokens = issuer(clock)
    token = tokens.issue("room-1", "player", seat="north", controls=("ayla",))
    clock.now = START + TTL - 1
    assert tokens.verify(token).role == Role.PLAYER
    clock.now = START + TTL
    error = refused(tokens, token, "room-1")
    assert error.code == ErrorCode.TOKEN_EXPIRED
    assert error.close_code == CloseCode.TOKEN_EXPIRED
    assert token not in str(error)


def test_an_expired_token_for_another_room_is_unauthorized_not_expired() -> None:
    """`token_expired` is said only of a token that would otherwise be accepted."""
    clock = Clock()
    tokens = issuer(clock)
    token = tokens.issue("room-1", "gm")
    clock.now = START + 10 * TTL
    assert_unauthorized(tokens, token, "room-2")
    assert_unauthorized(issuer(clock, OTHER_KEY), token)  # and a forged one too


def test_the_ttl_must_be_positive() -> None:
    for ttl in (0, -5, True):
        with pytest.raises(ValueError):
            TokenIssuer(SECRET, ttl_seconds=ttl)


# -- forgeries -------------------------------------------------------------------------


def test_a_token_signed_with_another_secret_is_refused() -> None:
    token = issuer(secret=OTHER_KEY).issue("room-1", "gm")
    assert_unauthorized(issuer(), token)


@pytest.mark.parametrize("part", [0, 1, 2])
def test_a_token_with_a_flipped_byte_is_refused(part: int) -> None:
    """One character changed in the header, the claims or the signature."""
    tokens = issuer()
    token = tokens.issue("room-1", "player", seat="north", controls=("ayla",))
    parts = token.split(".")
    middle = len(parts[part]) // 2
    flipped = "A" if parts[part][middle] != "A" else "B"
    parts[part] = parts[part][:middle] + flipped + parts[part][middle + 1 :]
    assert_unauthorized(tokens, ".".join(parts))


def test_a_player_token_rewritten_to_control_more_is_refused() -> None:
    """The attack that matters: keep the signature, change the claims."""
    tokens = issuer()
    token = tokens.issue("room-1", "player", seat="north", controls=("ayla",))
    header, _, signature = token.split(".")
    claims = claims_of(token) | {"controls": ["ayla", "bram"]}
    assert_unauthorized(tokens, f"{header}.{b64(claims)}.{signature}")
    claims = claims_of(token) | {"role": "gm", "controls": []}
    assert_unauthorized(tokens, f"{header}.{b64(claims)}.{signature}")


def test_an_unsigned_alg_none_token_is_refused() -> None:
    tokens = issuer()
    claims = claims_of(tokens.issue("room-1", "gm"))
    for alg in ("none", "None", "NONE"):
        assert_unauthorized(tokens, f"{b64({'alg': alg, 'typ': 'JWT'})}.{b64(claims)}.")
    assert_unauthorized(tokens, jwt.encode(claims, None, algorithm="none"))


def test_a_token_re_signed_with_another_key_is_refused() -> None:
    tokens = issuer()
    claims = claims_of(tokens.issue("room-1", "player", seat="north", controls=("ayla",)))
    claims["controls"] = ["ayla", "bram", "corvin"]
    assert_unauthorized(tokens, jwt.encode(claims, OTHER_KEY, algorithm="HS256"))


def test_a_token_signed_with_the_right_secret_but_another_algorithm_is_refused() -> None:
    tokens = issuer()
    claims = claims_of(tokens.issue("room-1", "gm"))
    for algorithm in ("HS384", "HS512"):
        with pytest.warns(InsecureKeyLengthWarning):  # PyJWT: 32 bytes is short for these
            token = jwt.encode(claims, SECRET, algorithm=algorithm)
        assert_unauthorized(tokens, token)


def test_a_token_for_another_room_is_refused() -> None:
    tokens = issuer()
    token = tokens.issue("room-1", "gm")
    assert_unauthorized(tokens, token, "room-2")
    assert tokens.verify(token, "room-1").room_id == "room-1"


# -- genuine signature, wrong claims ----------------------------------------------------


def signed(claims: dict[str, Any]) -> str:
    """A token the right secret signed, with claims the issuer would never write."""
    return jwt.encode(claims, SECRET, algorithm="HS256")


def good_claims() -> dict[str, Any]:
    return claims_of(issuer().issue("room-1", "player", seat="north", controls=("ayla",)))


@pytest.mark.parametrize(
    "change",
    [
        {"aud": "some-other-service"},
        {"aud": ["verse-combat", "other"]},
        {"role": "room"},  # the server's own principal is never granted
        {"role": "admin"},
        {"role": 1},
        {"controls": []},  # a player token without combatants
        {"controls": "ayla"},
        {"controls": ["ayla", 7]},
        {"seat": ""},
        {"room": ""},
        {"room": 5},
        {"exp": "tomorrow"},
        {"exp": True},
        {"exp": START},  # not after iat
        {"jti": 42},
        {"role": "spectator"},  # a spectator token that controls combatants
        {"role": "gm"},
    ],
    ids=repr,
)
def test_a_genuinely_signed_token_with_bad_claims_is_unauthorized(change: dict[str, Any]) -> None:
    assert_unauthorized(issuer(), signed(good_claims() | change))


@pytest.mark.parametrize("claim", ["aud", "room", "role", "seat", "controls", "iat", "exp", "jti"])
def test_a_genuinely_signed_token_missing_a_claim_is_unauthorized(claim: str) -> None:
    claims = good_claims()
    del claims[claim]
    assert_unauthorized(issuer(), signed(claims))


@pytest.mark.parametrize(
    "token", [None, 12, b"bytes", "", "garbage", "a.b.c", "...", "x" * 9000], ids=repr
)
def test_malformed_tokens_are_unauthorized(token: object) -> None:
    assert_unauthorized(issuer(), token)


def test_a_grant_is_immutable() -> None:
    grant: Grant = issuer().verify(issuer().issue("room-1", "gm"))
    with pytest.raises(AttributeError):
        grant.role = Role.PLAYER  # type: ignore[misc]


# -- the secret ------------------------------------------------------------------------


def test_a_secret_shorter_than_32_bytes_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 32"):
        TokenIssuer(SECRET[:31])
    with pytest.raises(TypeError):
        TokenIssuer("a text secret of more than 32 chars")  # type: ignore[arg-type]
    TokenIssuer(SECRET)  # 32 is enough


def test_the_issuer_never_shows_its_secret() -> None:
    assert SECRET.decode() not in repr(issuer())


def test_the_secret_file_is_created_once_with_mode_0600_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "data" / "token-secret"  # the data dir does not exist yet
    first = load_or_create_secret(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) == 64 and bytes.fromhex(first.decode())  # 32 random bytes, as hex
    inode = path.stat().st_ino
    second = load_or_create_secret(str(path))
    assert second == first and path.stat().st_ino == inode
    assert [p.name for p in path.parent.iterdir()] == ["token-secret"]  # no temporary left
    # A restart: tokens issued before it still verify.
    token = TokenIssuer(first).issue("room-1", "gm")
    assert TokenIssuer(load_or_create_secret(path)).verify(token).role == Role.GM


def test_two_data_dirs_get_different_secrets(tmp_path: Path) -> None:
    first = load_or_create_secret(tmp_path / "a" / "token-secret")
    assert load_or_create_secret(tmp_path / "b" / "token-secret") != first


def test_the_secret_file_text_is_the_key_a_secret_option_would_give(tmp_path: Path) -> None:
    """`--secret "$(cat DATA_DIR/token-secret)"` signs with the same key."""
    path = tmp_path / "token-secret"
    from_file = TokenIssuer(load_or_create_secret(path))
    from_option = TokenIssuer(path.read_text().strip().encode())
    assert from_option.verify(from_file.issue("room-1", "gm")).role == Role.GM


def test_a_secret_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token-secret"
    load_or_create_secret(path)
    os.chmod(path, 0o640)
    with pytest.raises(PermissionError, match="chmod 600"):
        load_or_create_secret(path)


def test_a_short_secret_file_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "token-secret"
    path.write_bytes(b"0123456789\n")
    os.chmod(path, 0o600)
    with pytest.raises(ValueError, match="at least 32") as error:
        load_or_create_secret(path)
    assert "0123456789" not in str(error.value)
    assert path.read_bytes() == b"0123456789\n"
