"""Discord's OAuth2 for the fake: the authorize page, the token exchange, and the user's
own endpoints with a Bearer token (`/users/@me`, `/users/@me/guilds`).

A test picks who "signs in" with ``fake.oauth.sign_in_as = user_id``; the authorize page
then shows one button that redirects back to the app with a code (as Discord does after
the person clicks Authorize). Codes work once; tokens map to that user.
"""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from aiohttp import web

if TYPE_CHECKING:
    from .world import World


@dataclass
class FakeOAuth:
    client_id: str = "fake-client-id"
    client_secret: str = "fake-client-secret"
    sign_in_as: int | None = None
    codes: dict[str, tuple[int, str]] = field(default_factory=dict)  # code → (user, redirect)
    tokens: dict[str, int] = field(default_factory=dict)
    exchanges: int = 0

    def bearer_user(self, request: web.Request) -> int | None:
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return None
        return self.tokens.get(auth.removeprefix("Bearer "))

    # ------------------------------------------------------------ pages (outside /api)

    async def authorize_page(self, request: web.Request) -> web.Response:
        q = request.query
        if q.get("client_id") != self.client_id or q.get("response_type") != "code":
            return web.Response(status=400, text="invalid client_id or response_type")
        if "identify" not in q.get("scope", "").split():
            return web.Response(status=400, text="scope must include identify")
        if self.sign_in_as is None:
            return web.Response(status=400, text="the test chose no user to sign in as")
        fields = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in q.items()
        )
        page = (
            "<!doctype html><title>Authorize</title><h1>Fake Discord</h1>"
            f'<form method="post" action="/oauth2/authorize">{fields}'
            '<button id="authorize">Authorize</button></form>'
        )
        return web.Response(text=page, content_type="text/html")

    async def authorize_submit(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        redirect = str(form.get("redirect_uri", ""))
        if str(form.get("client_id")) != self.client_id or self.sign_in_as is None:
            return web.Response(status=400, text="invalid request")
        code = secrets.token_hex(8)
        self.codes[code] = (self.sign_in_as, redirect)
        query = urlencode({"code": code, "state": str(form.get("state", ""))})
        raise web.HTTPFound(f"{redirect}?{query}")

    # ------------------------------------------------------------ API (under /api/v10)

    def token(self, form: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.exchanges += 1
        if form.get("client_id") != self.client_id or form.get("client_secret") != (
            self.client_secret
        ):
            return 401, {"error": "invalid_client"}
        entry = self.codes.pop(str(form.get("code")), None)
        if entry is None or form.get("grant_type") != "authorization_code":
            return 400, {"error": "invalid_grant"}
        user_id, redirect = entry
        if form.get("redirect_uri") != redirect:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri mismatch"}
        token = secrets.token_hex(16)
        self.tokens[token] = user_id
        return 200, {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": 604800,
            "scope": "identify guilds",
        }

    def guilds_of(self, world: World, user_id: int) -> list[dict[str, Any]]:
        return [
            {"id": str(g.id), "name": g.name, "owner": g.owner_id == user_id}
            for g in world.guilds.values()
            if user_id in g.members
        ]
