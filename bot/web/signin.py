"""Signing in: Discord OAuth2 (authorization code + state) and one-time operator links.

Endpoints derive from settings: the authorize page is DISCORD_OAUTH_AUTHORIZE_URL, the
token and user endpoints hang off DISCORD_API_BASE, so tests point them at the fake Discord.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

import aiohttp

from bot.settings import Settings

SCOPES = "identify guilds"
LINK_TTL = timedelta(minutes=10)


class SignInError(Exception):
    """Sign-in failed in a way the person should be told about (never a crash)."""


@dataclass(frozen=True)
class DiscordUser:
    """Who Discord says signed in, and the guilds it lists for them."""

    id: int
    name: str
    guild_ids: list[int]


def callback_url(settings: Settings) -> str:
    assert settings.web_base_url is not None
    return f"{settings.web_base_url}/auth/callback"


def authorize_url(settings: Settings, state: str) -> str:
    query = urlencode(
        {
            "response_type": "code",
            "client_id": settings.discord_client_id or "",
            "scope": SCOPES,
            "state": state,
            "redirect_uri": callback_url(settings),
        }
    )
    return f"{settings.discord_oauth_authorize_url}?{query}"


async def exchange_code(settings: Settings, code: str) -> DiscordUser:
    """Code → access token → the user and their guilds (server to server)."""
    if not settings.discord_client_id or settings.discord_client_secret is None:
        raise SignInError("Sign-in with Discord isn't set up here (no client id or secret).")
    api = settings.discord_api_base.rstrip("/")
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": callback_url(settings),
        "client_id": settings.discord_client_id,
        "client_secret": settings.discord_client_secret.get_secret_value(),
    }
    timeout = aiohttp.ClientTimeout(total=15)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as http:
            async with http.post(f"{api}/oauth2/token", data=form) as resp:
                if resp.status != 200:
                    raise SignInError("Discord refused that sign-in code; try signing in again.")
                token = (await resp.json()).get("access_token")
            if not isinstance(token, str) or not token:
                raise SignInError("Discord gave no access token; try signing in again.")
            auth = {"Authorization": f"Bearer {token}"}
            async with http.get(f"{api}/users/@me", headers=auth) as resp:
                if resp.status != 200:
                    raise SignInError("Discord wouldn't say who you are; try again.")
                me = await resp.json()
            async with http.get(f"{api}/users/@me/guilds", headers=auth) as resp:
                guilds = await resp.json() if resp.status == 200 else []
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        raise SignInError("Couldn't reach Discord to finish signing in; try again.") from exc
    name = str(me.get("global_name") or me.get("username") or me.get("id"))
    ids = [int(g["id"]) for g in guilds if isinstance(g, dict) and str(g.get("id", "")).isdigit()]
    return DiscordUser(int(me["id"]), name, ids)


# ---------------------------------------------------------------- one-time links


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(key: bytes, payload: bytes) -> str:
    return _b64(hmac.new(key, payload, hashlib.sha256).digest())


@dataclass(frozen=True)
class LoginLink:
    user_id: int
    link_id: str
    expires_at: datetime


def make_login_link(
    settings: Settings, user_id: int, now: datetime, ttl: timedelta = LINK_TTL
) -> str:
    """A signed, single-use, short-lived sign-in URL for `user_id` (printed for the operator)."""
    assert settings.web_base_url is not None
    body = json.dumps(
        {"u": str(user_id), "l": secrets.token_hex(16), "e": int((now + ttl).timestamp())},
        separators=(",", ":"),
    ).encode()
    token = f"{_b64(body)}.{sign(settings.web_key(), body)}"
    return f"{settings.web_base_url}/auth/link?{urlencode({'t': token})}"


def read_login_link(settings: Settings, token: str, now: datetime) -> LoginLink:
    """Check the signature and expiry (the caller checks it was not used before)."""
    try:
        body_part, sig = token.split(".", 1)
        body = _unb64(body_part)
    except ValueError:
        raise SignInError("That sign-in link is damaged; ask for a new one.") from None
    if not hmac.compare_digest(sig, sign(settings.web_key(), body)):
        raise SignInError("That sign-in link isn't valid; ask for a new one.")
    data = json.loads(body)
    expires = datetime.fromtimestamp(int(data["e"]), tz=now.tzinfo)
    if expires <= now:
        raise SignInError("That sign-in link has expired; run `homar web login-link` again.")
    return LoginLink(int(data["u"]), str(data["l"]), expires)
