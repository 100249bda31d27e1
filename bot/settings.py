"""Settings from the environment and `.env`; every one is documented in `.env.example`."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from tools.jobs.limits import Limits
from tools.schedule import ScheduleError, zone

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|h|d|w|y)", re.IGNORECASE)


def parse_span(value: Any) -> timedelta:
    """ "90" (seconds), "30m", "24h", "5y", "1h30m" → a timedelta."""
    if isinstance(value, timedelta):
        return value
    text = str(value).strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return timedelta(seconds=float(text))
    if not text or _SPAN.sub("", text):
        raise ValueError("use a number of seconds or a span like 30m, 24h, 7d or 5y")
    return timedelta(seconds=sum(float(n) * _UNITS[u] for n, u in _SPAN.findall(text)))


def _id_list(value: Any) -> list[int]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [int(v) for v in value]
    return [int(v) for v in re.split(r"[,\s]+", str(value).strip()) if v]


IdList = Annotated[list[int], NoDecode]

# What to put in each variable, for the one-line start-up error.
HINTS = {
    "DISCORD_TOKEN": "your bot token from https://discord.com/developers/applications",
    "DISCORD_API_BASE": "a URL such as https://discord.com/api/v10",
    "DISCORD_GATEWAY_URL": "a URL such as wss://gateway.discord.gg/",
    "DATABASE_URL": "sqlite+aiosqlite:///data/homar.db or postgresql+asyncpg://user:pass@host/db",
    "DEFAULT_TIMEZONE": "an IANA zone such as Europe/Berlin",
    "ALLOWED_GUILD_IDS": "comma-separated server ids, or nothing for any server",
    "AGENT_ROLE_IDS": "comma-separated role ids, or nothing for everyone",
    "SHARD_IDS": "comma-separated shard numbers such as 0,1",
    "LOG_FORMAT": "text or json",
    "LOG_LEVEL": "DEBUG, INFO, WARNING or ERROR",
    "WEB_BASE_URL": "the dashboard's public address, such as https://homar.example.org",
}


class Settings(BaseSettings):
    """Everything Homar reads from the environment (names are the variables, upper-cased)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
        env_ignore_empty=True,
    )

    discord_token: SecretStr | None = None
    discord_api_base: str = "https://discord.com/api/v10"
    discord_gateway_url: str = "wss://gateway.discord.gg/"
    database_url: str = "sqlite+aiosqlite:///data/homar.db"
    default_timezone: str = "UTC"

    homar_model: str | None = None
    homar_model_base_url: str | None = None
    homar_model_api_key: SecretStr | None = None
    homar_fallback_model: str | None = None
    model_timeout: float = Field(default=30.0, gt=0)
    model_requests_per_user_per_day: int = Field(default=200, ge=0)
    plain_reminders_in_code: bool = True

    max_horizon: timedelta = timedelta(days=5 * 365)
    min_interval: timedelta = timedelta(seconds=60)
    max_jobs_per_user: int = Field(default=50, ge=1)
    max_job_creations_per_minute: int = Field(default=10, ge=1)
    delivery_retry_window: timedelta = timedelta(minutes=15)
    reminder_max_follow_up_window: timedelta = timedelta(hours=24)
    reminder_ack_mode: str = "simple"
    approval_timeout: timedelta = timedelta(hours=24)

    allowed_guild_ids: IdList = Field(default_factory=list)
    agent_role_ids: IdList = Field(default_factory=list)
    dev_guild_id: int | None = None
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: IdList = Field(default_factory=list)

    health_port: int | None = Field(default=None, ge=1, le=65535)
    shutdown_grace: timedelta = timedelta(seconds=20)
    # The dashboard (bot/web): on when WEB_BASE_URL is set; served by the same aiohttp
    # server as /healthz, on HEALTH_PORT and also on WEB_PORT when that differs.
    web_base_url: str | None = None
    web_port: int | None = Field(default=None, ge=1, le=65535)
    web_secret: SecretStr | None = None
    web_session_ttl: timedelta = timedelta(days=7)
    web_live_poll: float = Field(default=2.0, gt=0)
    # Reverse proxies in front of the dashboard: only their X-Forwarded-For is believed.
    web_trusted_proxies: Annotated[list[str], NoDecode] = Field(default_factory=list)
    discord_client_id: str | None = None
    discord_client_secret: SecretStr | None = None
    discord_oauth_authorize_url: str = "https://discord.com/oauth2/authorize"
    mcp_config: str | None = None
    homar_plugins: str | None = None
    log_level: str = "INFO"
    log_format: str = "text"

    @field_validator(
        "max_horizon",
        "min_interval",
        "delivery_retry_window",
        "reminder_max_follow_up_window",
        "approval_timeout",
        "shutdown_grace",
        "web_session_ttl",
        mode="before",
    )
    @classmethod
    def _span(cls, value: Any) -> timedelta:
        return parse_span(value)

    @field_validator("allowed_guild_ids", "agent_role_ids", "shard_ids", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> list[int]:
        return _id_list(value)

    @field_validator("web_trusted_proxies", mode="before")
    @classmethod
    def _networks(cls, value: Any) -> list[str]:
        items = value.split(",") if isinstance(value, str) else list(value or [])
        out = []
        for item in (str(i).strip() for i in items):
            if not item:
                continue
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(
                    f"{item!r} is not an IP address or network (like 10.0.0.2 or 10.0.0.0/8)"
                ) from None
            out.append(item)
        return out

    @field_validator("default_timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            zone(value)
        except ScheduleError as exc:
            raise ValueError(exc.message) from None
        return value

    @field_validator("database_url")
    @classmethod
    def _db(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError("use sqlite+aiosqlite:///path.db or postgresql+asyncpg://…")
        return value

    @field_validator("web_base_url")
    @classmethod
    def _web_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        if not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
            raise ValueError("must be the dashboard's address, like https://homar.example.org")
        return value.rstrip("/")

    @field_validator("discord_api_base", "discord_gateway_url", "discord_oauth_authorize_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not re.match(r"^(https?|wss?)://\S+$", value):
            raise ValueError("must be a full URL")
        return value

    @field_validator("reminder_ack_mode")
    @classmethod
    def _ack(cls, value: str) -> str:
        if value.lower() not in ("simple", "smart"):
            raise ValueError("use simple or smart")
        return value.lower()

    @field_validator("log_format")
    @classmethod
    def _log_format(cls, value: str) -> str:
        if value.lower() not in ("text", "json"):
            raise ValueError("use text or json")
        return value.lower()

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        if value.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("use DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return value.upper()

    @field_validator("homar_model", "homar_model_base_url", "homar_fallback_model", "mcp_config")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value or None

    @property
    def token(self) -> str | None:
        return self.discord_token.get_secret_value() if self.discord_token else None

    @property
    def web_port_or_health(self) -> int | None:
        """The port the dashboard answers on: WEB_PORT, else HEALTH_PORT's server."""
        return self.web_port or self.health_port

    def web_key(self) -> bytes:
        """Signs cookies and sign-in links: WEB_SECRET, else derived from the bot token, so
        every process of one deployment agrees without another secret to share."""
        if self.web_secret is not None:
            return self.web_secret.get_secret_value().encode()
        if not self.token:
            raise SettingsError("Setting WEB_SECRET is missing: put a long random string there.")
        return hmac.new(self.token.encode(), b"homar-web-dashboard", hashlib.sha256).digest()

    def limits(self) -> Limits:
        return Limits(
            max_horizon=self.max_horizon,
            min_interval=self.min_interval,
            max_jobs_per_user=self.max_jobs_per_user,
            creations_per_minute=self.max_job_creations_per_minute,
            retry_window=self.delivery_retry_window,
            follow_up_window=self.reminder_max_follow_up_window,
        )


class SettingsError(Exception):
    """One line naming the variable and what to put there."""


def load_settings(**overrides: Any) -> Settings:
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).upper() if err.get("loc") else "a setting"
        reason = str(err.get("msg", "is invalid")).removeprefix("Value error, ").rstrip(".")
        hint = HINTS.get(name)
        tail = f" Put {hint} there." if hint else ""
        raise SettingsError(f"Setting {name} is invalid: {reason}.{tail}") from None
