"""Cookies, sessions, CSRF and origin checks, rate limits and security headers.

The session cookie carries a random token plus its HMAC (signed); the server keeps only the
token's SHA-256 with the user id, so signing out everywhere is deleting rows. Every write
must carry the session's CSRF token in a form field and must not come from another site
(Origin, else Referer, must be the dashboard's own).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from bot.settings import Settings
from bot.web.signin import sign
from storage.db import Database
from storage.rate_limits import RateCounter
from storage.web_sessions import SignedIn, WebSessionStore

SESSION_COOKIE = "homar_session"
STATE_COOKIE = "homar_oauth_state"

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        _harden(request, exc)
        raise
    _harden(request, response)
    return response


def _harden(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        if name == "Cache-Control" and request.path.startswith("/static/"):
            continue
        response.headers.setdefault(name, value)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RateLimit:
    """At most `limit` events per `window` seconds per key, counted in the database so the
    limit holds across every process serving the dashboard (PostgreSQL scale-out)."""

    def __init__(
        self,
        db: Database,
        name: str,
        limit: int,
        window: float,
        clock: Callable[[], float] = time.time,  # wall clock: the same on every process
    ) -> None:
        self.name = name
        self.limit = limit
        self.clock = clock
        self.counter = RateCounter(db, window)

    async def allow(self, key: str) -> bool:
        """Count this attempt; False once the key is over the limit (refused ones count
        too, so hammering doesn't reopen the door)."""
        return await self.counter.hit(f"{self.name}:{key}", self.clock()) <= self.limit


class Guard:
    """Signs cookies, finds the request's session, and checks writes."""

    def __init__(self, settings: Settings, store: WebSessionStore) -> None:
        assert settings.web_base_url is not None
        self.settings = settings
        self.store = store
        self.key = settings.web_key()
        self.base = settings.web_base_url
        parts = urlsplit(self.base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.secure = parts.scheme == "https"
        self.proxies = [ipaddress.ip_network(p, strict=False) for p in settings.web_trusted_proxies]
        self.sign_ins = RateLimit(store.db, "sign-in", 10, 60.0)  # per client address
        self.writes = RateLimit(store.db, "write", 30, 60.0)  # per signed-in user

    # ------------------------------------------------------------ cookies

    def seal(self, value: str) -> str:
        return f"{value}.{sign(self.key, value.encode())}"

    def unseal(self, sealed: str | None) -> str | None:
        if not sealed or "." not in sealed:
            return None
        value, sig = sealed.rsplit(".", 1)
        return value if hmac.compare_digest(sig, sign(self.key, value.encode())) else None

    def set_cookie(self, response: web.StreamResponse, name: str, value: str, max_age: int) -> None:
        response.set_cookie(
            name,
            self.seal(value),
            max_age=max_age,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=self.secure,
        )

    def clear_cookie(self, response: web.StreamResponse, name: str) -> None:
        response.del_cookie(name, path="/")

    # ------------------------------------------------------------ sessions

    async def start_session(
        self,
        response: web.StreamResponse,
        *,
        user_id: int,
        user_name: str,
        guild_ids: list[int],
        now: datetime,
    ) -> SignedIn:
        token = secrets.token_urlsafe(32)
        ttl = self.settings.web_session_ttl
        signed = await self.store.create(
            token_hash=token_hash(token),
            user_id=user_id,
            user_name=user_name,
            guild_ids=guild_ids,
            csrf=secrets.token_urlsafe(32),
            now=now,
            expires_at=now + ttl,
        )
        self.set_cookie(response, SESSION_COOKIE, token, int(ttl.total_seconds()))
        return signed

    async def session(self, request: web.Request, now: datetime) -> SignedIn | None:
        token = self.unseal(request.cookies.get(SESSION_COOKIE))
        if token is None:
            return None
        return await self.store.get(token_hash(token), now)

    # ------------------------------------------------------------ who is asking

    def client_address(self, request: web.Request) -> str:
        """The address sign-in limits count: the peer, or behind a trusted proxy the last
        hop of X-Forwarded-For that isn't one (hops a client wrote itself come before it)."""
        peer = request.remote or "?"
        if not self._trusted(peer):
            return peer
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
        hops = [h for h in hops if h]
        for hop in reversed(hops):
            if not self._trusted(hop):
                return hop[:64]
        return peer

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.proxies)

    # ------------------------------------------------------------ writes

    def same_site(self, request: web.Request) -> bool:
        """Refuse a write another site's page sent (Origin, else Referer, must be ours)."""
        origin = request.headers.get("Origin")
        if origin is not None:
            return origin == self.origin
        referer = request.headers.get("Referer")
        if referer is not None:
            parts = urlsplit(referer)
            return f"{parts.scheme}://{parts.netloc}" == self.origin
        return True  # neither header: the CSRF token alone decides

    async def check_write(self, request: web.Request, signed: SignedIn) -> Mapping[str, Any]:
        """The form of an allowed write, or an HTTP error (403 cross-site/CSRF, 429)."""
        if not self.same_site(request):
            raise web.HTTPForbidden(text="Refused: this request came from another site.")
        form = await request.post()
        sent = form.get("csrf")
        if not isinstance(sent, str) or not hmac.compare_digest(sent, signed.csrf):
            raise web.HTTPForbidden(
                text="Refused: the form was missing its security token; reload the page."
            )
        if not await self.writes.allow(str(signed.user_id)):
            raise web.HTTPTooManyRequests(text="Too many changes at once; wait a minute.")
        return form
