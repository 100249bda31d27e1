"""The `homar` command line: run the bot, chat in a terminal, and operate the database."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.settings import Settings, SettingsError, load_settings

app = typer.Typer(
    name="homar",
    help=(
        "Homar: a Discord bot whose AI agent lives in threads and does things later.\n\n"
        "Examples:\n\n"
        "  homar run                      start the Discord bot (needs DISCORD_TOKEN)\n\n"
        "  homar chat                     talk to Homar in this terminal, no Discord needed\n\n"
        "  printf 'remind me in 3 seconds to stretch\\n' | homar chat\n\n"
        "  homar jobs list --user 1234    what a user has scheduled\n\n"
        "  homar jobs cancel 42           cancel job #42\n\n"
        "  homar db upgrade               apply database migrations\n\n"
        "  homar status                   pending, due, late, failed and paused counts"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
jobs_app = typer.Typer(help="Inspect and cancel jobs without Discord.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(jobs_app, name="jobs")


def _settings() -> Settings:
    try:
        return load_settings()
    except SettingsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


def _logging(settings: Settings) -> None:
    from bot.logs import setup

    setup(settings.log_level)  # job, run and thread ids on each line; LOG_FORMAT=json for JSON


def _run(coro: Coroutine[Any, Any, int | None]) -> None:
    try:
        code = asyncio.run(coro)
    except KeyboardInterrupt:
        code = 130
    raise typer.Exit(code or 0)


@app.command()
def run() -> None:
    """Start the Discord bot (SQLite in ./data by default)."""
    settings = _settings()
    if not settings.token:
        typer.echo(
            "DISCORD_TOKEN is not set. Create an application at "
            "https://discord.com/developers/applications, open Bot → Reset Token, and put "
            "DISCORD_TOKEN=<token> in .env (see README). To try Homar without Discord, "
            "run: homar chat",
            err=True,
        )
        raise typer.Exit(2)
    _logging(settings)
    from bot.app import run_discord

    _run(run_discord(settings))


@app.command()
def chat() -> None:
    """Talk to Homar in this terminal: same agent, engine and database, one local thread."""
    settings = _settings()
    logging.basicConfig(level=logging.WARNING)
    from bot.console import run_chat

    _run(run_chat(settings))


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database to the newest schema."""
    settings = _settings()

    async def go() -> int:
        from storage.db import Database

        db = Database(settings.database_url)
        try:
            changed = await db.upgrade()
        finally:
            await db.close()
        typer.echo("Database migrated." if changed else "Database is up to date.")
        return 0

    _run(go())


@app.command()
def healthcheck(
    url: str | None = typer.Option(
        None, "--url", help="Default: http://127.0.0.1:$HEALTH_PORT/healthz."
    ),
    timeout: float = typer.Option(4.0, "--timeout", help="Seconds to wait for an answer."),
) -> None:
    """Exit 0 if the running bot's /healthz answers OK (for container health checks)."""
    import json
    import urllib.error
    import urllib.request

    if url is None:
        settings = _settings()
        if settings.health_port is None:
            typer.echo("HEALTH_PORT is not set, so there is no /healthz to ask.", err=True)
            raise typer.Exit(2)
        url = f"http://127.0.0.1:{settings.health_port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        typer.echo(f"unhealthy: {url} answered {exc.code}", err=True)
        raise typer.Exit(1) from None
    except (OSError, ValueError) as exc:
        typer.echo(f"unhealthy: {url} did not answer ({exc})", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{body.get('status', 'ok')}: db={body.get('db')} discord={body.get('discord')}")


@db_app.command("backup")
def db_backup(
    path: Annotated[Path, typer.Argument(help="Where to write the copy, e.g. backups/homar.db.")],
    force: bool = typer.Option(False, "--force", help="Replace PATH if it exists."),
) -> None:
    """Copy the live SQLite database to PATH (safe while the bot runs)."""
    settings = _settings()
    from storage.transfer import TransferError, backup_sqlite

    try:
        size = backup_sqlite(settings.database_url, path, overwrite=force)
    except TransferError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    typer.echo(f"Backed up to {path} ({size / 1024:.0f} KiB). Restore: stop Homar, copy it back.")


@db_app.command("copy")
def db_copy(
    to: str = typer.Option(
        ..., "--to", help="Target database URL, e.g. postgresql+asyncpg://user:pass@host/homar."
    ),
) -> None:
    """Copy every job, run, approval, to-do and setting into another (empty) database.

    Stop the bot first; afterwards point DATABASE_URL at the target.
    """
    settings = _settings()

    async def go() -> int:
        from storage.transfer import TransferError, copy_database

        try:
            counts = await copy_database(settings.database_url, to)
        except TransferError as exc:
            typer.echo(str(exc), err=True)
            return 2
        except Exception as exc:  # an unreachable or refusing target: one clear line
            typer.echo(f"Could not copy to the target database: {exc}", err=True)
            return 1
        for c in counts:
            mark = "ok" if c.ok else "MISMATCH"
            typer.echo(f"{c.table:>16}: {c.source} → {c.target}  {mark}")
        if not all(c.ok for c in counts):
            typer.echo("The copy is incomplete; do not switch DATABASE_URL.", err=True)
            return 1
        typer.echo("Copied and verified. Set DATABASE_URL to the target and start Homar.")
        return 0

    _run(go())


@jobs_app.command("list")
def jobs_list(
    user: int | None = typer.Option(None, "--user", help="Only this Discord user's jobs."),
    all_: bool = typer.Option(False, "--all", help="Include finished and cancelled jobs."),
) -> None:
    """List scheduled jobs (id, kind, next run, status, owner, command)."""
    settings = _settings()

    async def go() -> int:
        from bot.operator import list_jobs

        for line in await list_jobs(settings, user=user, include_closed=all_):
            typer.echo(line)
        return 0

    _run(go())


@jobs_app.command("cancel")
def jobs_cancel(job_id: int = typer.Argument(..., help="The job number, e.g. 42.")) -> None:
    """Cancel a job by its number."""
    settings = _settings()

    async def go() -> int:
        from bot.operator import cancel_job

        ok, message = await cancel_job(settings, job_id)
        typer.echo(message, err=not ok)
        return 0 if ok else 1

    _run(go())


@app.command()
def status() -> None:
    """Counts of pending, due, late, failed and paused jobs."""
    settings = _settings()

    async def go() -> int:
        from bot.operator import status_counts

        for key, value in (await status_counts(settings)).items():
            typer.echo(f"{key:>8}: {value}")
        return 0

    _run(go())


def main() -> None:
    try:
        app()
    except SettingsError as exc:  # raised lazily by code paths that reload settings
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None
