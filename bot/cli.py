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
        "  homar jobs export jobs.ics     every open job as iCalendar (or .json)\n\n"
        "  homar db upgrade               apply database migrations\n\n"
        "  homar status                   pending, due, late, failed and paused counts"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"homar {version('homar')}")
        except PackageNotFoundError:
            typer.echo("homar (not installed; run ./homar once)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Homar's command line."""


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
jobs_app = typer.Typer(
    help="See, change, export and import jobs without Discord.", no_args_is_help=True
)
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

    setup(settings.log_level, settings.log_format)  # job, run and thread ids on each line


def _run(coro: Coroutine[Any, Any, int | None]) -> None:
    from storage.db import StorageUnavailable

    try:
        code = asyncio.run(coro)
    except KeyboardInterrupt:
        code = 130
    except StorageUnavailable as exc:  # one line a person can act on, not a traceback
        typer.echo(
            f"Homar can't use its database: {exc}. Check DATABASE_URL in .env, that the "
            "database server is running, and that the disk has room.",
            err=True,
        )
        code = 2
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
            "run: ./homar chat",
            err=True,
        )
        raise typer.Exit(2)
    _logging(settings)
    from bot.wiring import run_discord

    _run(run_discord(settings))


@app.command()
def chat(
    wait: float | None = typer.Option(
        None,
        "--wait",
        min=0,
        help="Piped input: seconds to wait for the jobs it created (default: until the last "
        "one has fired, up to 60).",
    ),
) -> None:
    """Talk to Homar in this terminal: same agent, engine and database, one local thread."""
    settings = _settings()
    logging.basicConfig(level=logging.WARNING)
    from bot.wiring import run_chat

    _run(run_chat(settings, wait=wait))


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


def _act(work: Coroutine[Any, Any, str]) -> None:
    """Run one operator command; a mistake is one line on stderr and exit code 1."""
    from bot.operator import for_terminal
    from tools.errors import UserError

    settings = _settings()

    async def go() -> int:
        try:
            typer.echo(await work)
        except UserError as exc:
            typer.echo(for_terminal(settings, exc.message), err=True)
            return 1
        return 0

    _run(go())


JobId = typer.Argument(..., help="The job number, e.g. 42.")


@jobs_app.command("show")
def jobs_show(job_id: int = JobId) -> None:
    """Everything about one job: command, schedule, next run, runs, owner."""
    from bot.operator import show_job

    _act(show_job(_settings(), job_id))


@jobs_app.command("cancel")
def jobs_cancel(job_id: int = JobId) -> None:
    """Cancel a job by its number."""
    from bot.operator import change

    _act(change(_settings(), "cancel", job_id))


@jobs_app.command("pause")
def jobs_pause(job_id: int = JobId) -> None:
    """Pause a job until it is resumed."""
    from bot.operator import change

    _act(change(_settings(), "pause", job_id))


@jobs_app.command("resume")
def jobs_resume(job_id: int = JobId) -> None:
    """Resume a paused job from its next run."""
    from bot.operator import change

    _act(change(_settings(), "resume", job_id))


@jobs_app.command("run-now")
def jobs_run_now(job_id: int = JobId) -> None:
    """Make a job due now (a running bot fires it; a repeating job then carries on)."""
    from bot.operator import change

    _act(change(_settings(), "run-now", job_id))


@jobs_app.command("history")
def jobs_history(
    job_id: int = JobId,
    limit: int = typer.Option(10, "--limit", min=1, max=1000, help="How many runs."),
) -> None:
    """A job's last runs: when due, when delivered, how late, outcome."""
    from bot.operator import history

    _act(history(_settings(), job_id, limit))


@jobs_app.command("edit")
def jobs_edit(
    job_id: int = JobId,
    when: str | None = typer.Option(None, "--when", help="New time: 'tomorrow 9am'."),
    what: str | None = typer.Option(None, "--what", help="New text."),
    repeat: str | None = typer.Option(
        None, "--repeat", help="New repeat: 'daily', 'every weekday at 9', or 'never'."
    ),
) -> None:
    """Change a job's time, text or repeat (times read in the job's own zone)."""
    from bot.operator import edit

    _act(edit(_settings(), job_id, when=when, what=what, repeat=repeat))


@jobs_app.command("export")
def jobs_export(
    path: str = typer.Argument("-", help="File to write (.json or .ics); - for stdout."),
    fmt: str | None = typer.Option(None, "--format", help="json or ics (default: by suffix)."),
    user: int | None = typer.Option(None, "--user", help="Only this Discord user's jobs."),
) -> None:
    """Export open jobs as JSON or iCalendar (.ics with RRULE/EXDATE)."""
    settings = _settings()

    async def go() -> int:
        from bot.operator import export_jobs, file_format
        from tools.errors import UserError

        try:
            text, count = await export_jobs(settings, fmt=file_format(path, fmt), user=user)
        except UserError as exc:
            typer.echo(exc.message, err=True)
            return 1
        if path == "-":
            sys.stdout.write(text)
        else:
            from pathlib import Path

            await asyncio.to_thread(Path(path).write_text, text, encoding="utf-8", newline="")
            typer.echo(f"Exported {count} job{'s' if count != 1 else ''} to {path}.", err=True)
        return 0

    _run(go())


@jobs_app.command("import")
def jobs_import(
    path: str = typer.Argument(..., help="A file made by `homar jobs export` (.json or .ics)."),
    fmt: str | None = typer.Option(None, "--format", help="json or ics (default: by suffix)."),
    owner: int | None = typer.Option(
        None, "--owner", help="For a calendar not made by Homar: whose jobs they become."
    ),
    channel: int | None = typer.Option(
        None, "--channel", help="For a calendar not made by Homar: where they post."
    ),
) -> None:
    """Import jobs; each is checked like a new one, and refusals are listed."""
    settings = _settings()

    async def go() -> int:
        from pathlib import Path

        from bot.job_files import Place
        from bot.operator import file_format, import_jobs
        from tools.errors import UserError

        place = Place(owner, channel) if owner is not None and channel is not None else None
        try:
            made, problems = await import_jobs(
                settings, Path(path), fmt=file_format(path, fmt), place=place
            )
        except UserError as exc:
            typer.echo(exc.message, err=True)
            return 1
        ids = ", ".join(f"#{i}" for i in made)
        plural = "s" if len(made) != 1 else ""
        typer.echo(f"Imported {len(made)} job{plural}" + (f": {ids}." if ids else "."))
        for problem in problems:
            typer.echo(f"Skipped {problem}", err=True)
        return 1 if problems else 0

    _run(go())


@app.command()
def status() -> None:
    """Counts of pending, due, late, failed and paused jobs, open approvals, and runs that
    failed or were late in the last 24 hours."""
    settings = _settings()

    async def go() -> int:
        from bot.operator import status_counts

        for key, value in (await status_counts(settings)).items():
            typer.echo(f"{key:>18}: {value}")
        return 0

    _run(go())


def main() -> None:
    import pydantic_ai

    # Homar owns its terminal: no third-party first-run banner in `homar chat` or logs.
    pydantic_ai.BANNER_ENABLED = False
    try:
        app()
    except SettingsError as exc:  # raised lazily by code paths that reload settings
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None


web_app = typer.Typer(help="The web dashboard.", no_args_is_help=True)
app.add_typer(web_app, name="web")


@web_app.command("login-link")
def web_login_link(
    user: Annotated[int, typer.Option("--user", help="The Discord user id to sign in as.")],
    minutes: Annotated[int, typer.Option(min=1, max=60, help="How long it stays valid.")] = 10,
) -> None:
    """Print a one-time, short-lived dashboard sign-in link (no OAuth redirect needed).

    It works once (any process of this deployment refuses it afterwards) and expires after
    --minutes. Anyone holding it signs in as that user: send it only to them.
    """
    from datetime import UTC, datetime, timedelta

    from bot.web.signin import make_login_link

    settings = _settings()
    if settings.web_base_url is None:
        typer.echo("WEB_BASE_URL is not set, so there is no dashboard to sign in to.", err=True)
        raise typer.Exit(2)
    try:
        link = make_login_link(settings, user, datetime.now(UTC), timedelta(minutes=minutes))
    except SettingsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    typer.echo(link)
