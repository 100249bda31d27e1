"""Database connection: engine, sessions and migrations for SQLite or PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
HEAD_REVISION = "0007"

T = TypeVar("T")


class StorageUnavailable(Exception):
    """The database can't be reached or written right now (down, disk full, read-only,
    busy for too long). Nothing of the failed transaction was written; the same call
    works again once storage is back."""


# Words in driver errors that mean "storage is unavailable", not "this request is wrong".
_UNAVAILABLE = (
    "disk is full",
    "disk full",
    "readonly",
    "read-only",
    "read only",
    "disk i/o error",
    "unable to open",
    "database is locked",
    "busy",
    "connection refused",
    "could not connect",
    "connection was closed",
    "connection is closed",
    "does not exist",
    "authentication failed",
    "no space left",
    "too many connections",
    "timeout",
    "timed out",
    "name or service not known",
    "temporary failure in name resolution",
)


def unavailable(exc: BaseException) -> StorageUnavailable | None:
    """`exc` as a `StorageUnavailable` (with a short reason) if that's what it means."""
    if isinstance(exc, StorageUnavailable):
        return exc
    chain: list[BaseException] = [exc]
    for inner in (getattr(exc, "orig", None), exc.__cause__):
        if isinstance(inner, BaseException):
            chain.append(inner)
    for err in chain:
        if isinstance(err, (ConnectionError, TimeoutError, PermissionError)):
            return StorageUnavailable(f"the database can't be reached ({type(err).__name__})")
        text = str(err).lower()
        for words in _UNAVAILABLE:
            if words in text:
                return StorageUnavailable(f"the database is unavailable ({words})")
    if isinstance(exc, OSError):
        return StorageUnavailable(f"the database can't be reached ({exc.strerror or exc})")
    return None


# BEGIN IMMEDIATE runs on the raw driver (see `_sqlite_engine`), so a busy database
# surfaces as the driver's own error, not SQLAlchemy's.
_LOCKED = (OperationalError, sqlite3.OperationalError)


class Database:
    """One database: an async engine, a session factory and its migrations."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        parsed = make_url(url)
        self.url = url
        self.dialect = parsed.get_backend_name()
        kwargs: dict[str, Any] = {"echo": echo, "json_serializer": json_text}
        if self.dialect == "sqlite":
            path = parsed.database
            if path and path != ":memory:":
                folder = Path(path).expanduser().parent
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StorageUnavailable(
                        f"can't create the database folder {folder}: {exc.strerror or exc}"
                    ) from None
            kwargs["connect_args"] = {"timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._inline: _Connected | None = None
        self._threaded: _Connected | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._sync_engines: list[Engine] = []
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
            # Transactions run with the plain driver, as one unit. SQLite in WAL mode with
            # synchronous=NORMAL commits without fsync, so a transaction takes well under
            # a millisecond: it runs right on the event loop (a thread hop would cost more
            # than the work, and aiosqlite pays one per statement). Only if another process
            # holds the write lock does it wait, on a worker thread, off the loop.
            sync_url = parsed.set(drivername="sqlite")
            inline = _sqlite_engine(sync_url, busy_timeout_ms=25)
            threaded = _sqlite_engine(sync_url, busy_timeout_ms=30_000)
            self._sync_engines = [inline, threaded]
            self._inline = _Connected(inline)
            self._threaded = _Connected(threaded)
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="homar-sqlite")

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def session(self) -> AsyncSession:
        return self.sessions()

    async def run(self, work: Callable[[Session], T]) -> T:
        """Run `work(session)` as one transaction (see `_run`); storage that is down, full
        or read-only raises `StorageUnavailable`, with nothing written."""
        try:
            return await self._run(work)
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            raise unavailable(exc) or exc from exc

    async def run_core(self, work: Callable[[Connection], T]) -> T:
        """Like `run`, for Core-only work: a bare connection, without an ORM session."""
        try:
            return await self._run_core(work)
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            raise unavailable(exc) or exc from exc

    async def run_prepared(self, work: Callable[[Connection], T]) -> T:
        """Like `run_core`, for work made only of `storage.prepared.Prepared` statements
        (which run on the driver's cursor on SQLite): there the transaction itself is
        begun and committed on the driver too, without SQLAlchemy's transaction
        bookkeeping (~13 µs, a quarter of a small transaction's time). `work` must not
        execute through the `Connection` on SQLite (that would begin a second one)."""
        if self._inline is None:
            return await self.run_core(work)
        try:
            return await self._on_sqlite(lambda connected: connected.driver_transaction(work))
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            raise unavailable(exc) or exc from exc

    async def _run(self, work: Callable[[Session], T]) -> T:
        """Run `work(session)` as one transaction and return its result.

        On SQLite the transaction is `BEGIN IMMEDIATE` on the plain driver (inline,
        falling back to a worker thread when the database is locked by another
        process); on PostgreSQL it goes through the async driver
        (`AsyncSession.run_sync`). `work` must only touch the database.
        """
        if self._inline is not None:
            return await self._on_sqlite(lambda connected: _transaction(connected, work))
        async with self.sessions() as session, session.begin():
            return await session.run_sync(work)

    async def _on_sqlite(self, transaction: Callable[[_Connected], T]) -> T:
        """SQLite: `transaction` inline, or in the worker thread when another process holds
        the database locked (blocking there, not in the event loop)."""
        assert self._inline is not None
        try:
            return transaction(self._inline)
        except _LOCKED as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        assert self._threaded is not None and self._thread is not None
        threaded = self._threaded
        return await asyncio.get_running_loop().run_in_executor(
            self._thread, lambda: transaction(threaded)
        )

    async def _run_core(self, work: Callable[[Connection], T]) -> T:
        if self._inline is not None:
            return await self._on_sqlite(lambda connected: _core_transaction(connected, work))
        async with self.engine.begin() as conn:
            return await conn.run_sync(work)

    async def current_revision(self) -> str | None:
        try:
            async with self.engine.connect() as conn:
                row = (await conn.execute(text("SELECT version_num FROM alembic_version"))).first()
        except DBAPIError:
            return None
        return str(row[0]) if row else None

    async def upgrade(self) -> bool:
        """Bring the schema to the newest revision; False if it already was.

        Raises `StorageUnavailable` when the database can't be reached or written.
        """
        try:
            if await self.current_revision() == HEAD_REVISION:
                return False
            async with self.engine.begin() as conn:
                await conn.run_sync(_alembic_upgrade)
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            raise unavailable(exc) or exc from exc
        log.info("database migrated to revision %s", HEAD_REVISION)
        return True

    async def close(self) -> None:
        if self._thread is not None:
            # Wait for a transaction still on the worker without blocking the event loop
            # (it may be waiting for a lock that a task on this loop has to release).
            thread, self._thread = self._thread, None
            await asyncio.get_running_loop().run_in_executor(None, thread.shutdown)
        for connected in (self._inline, self._threaded):
            if connected is not None:
                connected.close()
        for sync in self._sync_engines:
            sync.dispose()
        await self.engine.dispose()


def _transaction(connected: _Connected, work: Callable[[Session], T]) -> T:
    return connected.transaction(work)


def _core_transaction(connected: _Connected, work: Callable[[Connection], T]) -> T:
    return connected.core_transaction(work)


class _Connected:
    """One engine's connection, kept open between transactions (it is only ever used from
    one thread): checking a connection out of the pool and building a `Connection` for
    each transaction cost more than a small SQLite transaction itself."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._conn: Connection | None = None
        self._sessions = sessionmaker(expire_on_commit=False)

    def _connection(self) -> Connection:
        if self._conn is None or self._conn.closed or self._conn.invalidated:
            self._conn = self.engine.connect()
        return self._conn

    def transaction(self, work: Callable[[Session], T]) -> T:
        conn = self._connection()
        try:
            with self._sessions(bind=conn) as session, session.begin():
                return work(session)
        except BaseException:
            self._drop_if_broken(conn)
            raise

    def core_transaction(self, work: Callable[[Connection], T]) -> T:
        conn = self._connection()
        try:
            with conn.begin():
                return work(conn)
        except BaseException:
            self._drop_if_broken(conn)
            raise

    def driver_transaction(self, work: Callable[[Connection], T]) -> T:
        conn = self._connection()
        raw = conn.connection.driver_connection
        assert raw is not None
        raw.execute("BEGIN IMMEDIATE")  # busy: raised before anything began
        try:
            result = work(conn)
            raw.execute("COMMIT")
        except BaseException:
            if raw.in_transaction:
                try:
                    raw.execute("ROLLBACK")
                except Exception:
                    self.close()  # in doubt: the next transaction gets a fresh connection
            raise
        return result

    def _drop_if_broken(self, conn: Connection) -> None:
        # A failed transaction was rolled back; a connection left in doubt (still in a
        # transaction, invalidated) is replaced by a fresh one for the next.
        if conn.in_transaction() or conn.invalidated:
            self.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def _json_encoder() -> Callable[[Any], str]:
    """`json.dumps` with its defaults, without building a new encoder on every call (about
    two thirds of its time on a job's small schedule object; an import encodes one per
    job). The same text as `json.dumps`; a structure that contains itself fails with
    RecursionError instead of ValueError (stored columns are plain data)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator (another Python): the plain way
        return json.dumps
    default = json.JSONEncoder().default
    encode_str = json.encoder.encode_basestring_ascii
    chunks = make(None, default, encode_str, None, ": ", ", ", False, False, True)

    def dumps(value: Any) -> str:
        if isinstance(value, str):
            return str(encode_str(value))
        return "".join(chunks(value, 0))

    return dumps


# What every JSON column is written with (SQLAlchemy's `json_serializer`).
json_text = _json_encoder()


def _sqlite_engine(url: URL, *, busy_timeout_ms: int) -> Engine:
    # One connection per engine: each engine is only ever used from one thread.
    engine = create_engine(
        url,
        connect_args={"timeout": busy_timeout_ms / 1000},
        poolclass=StaticPool,
        json_serializer=json_text,
    )

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        _sqlite_pragmas(dbapi_conn, _record)
        dbapi_conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        # Let SQLAlchemy, not the driver, decide where transactions begin (see below).
        dbapi_conn.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # Take the write lock up front: a read-then-write transaction (limit checks,
        # claims) must not interleave with another writer.
        conn.connection.driver_connection.execute("BEGIN IMMEDIATE")  # type: ignore[union-attr]

    return engine


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _alembic_upgrade(conn: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")
