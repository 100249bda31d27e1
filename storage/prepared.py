"""Prepared statements for the hot paths (create, claim, record).

A `Prepared` wraps one SQLAlchemy Core statement. On PostgreSQL it is executed
through the session as usual. On SQLite it is compiled once and run straight on
the DB-API cursor of the session's connection, with SQLAlchemy's own bind and
result processors: the statement is written once, in Core, but skips the
per-execution overhead (~150 µs) that would otherwise dominate a 50 µs SQLite
statement.
"""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Column
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]
    defaults: dict[str, Any]
    # The parameters in statement order, picked from a values mapping in one call; then
    # the positions whose type has a bind processor (most have none: ints, strings).
    pick: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    convert: tuple[tuple[int, Callable[[Any], Any]], ...]
    results: tuple[Processor, ...]


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for a burst of allocations (an import's rows
    and parameter sets, tens of thousands of small acyclic objects): the collector would
    otherwise run every 700 of them and rescan the growing batch, about a third of an
    import's time. Keep it to work that is CPU-bound from start to end (an import awaits
    only its one transaction); reference counting still frees everything meanwhile, and
    the collector resumes after. Nested pauses resume only when the outermost ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _none_known(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`process`, with its answer for None worked out once: most of a new job's optional
    columns are empty, and a JSON column's processor serializes None (to 'null') anew
    on every call."""
    try:
        none = process(None)
    except Exception:
        return process

    def known(value: Any) -> Any:
        return none if value is None else process(value)

    return known


def _processed(column: Sequence[Any], process: Callable[[Any], Any]) -> list[Any]:
    """`process` applied to each value, once per run of the same object."""
    if column and column.count(None) == len(column):  # an empty column (counted in C)
        return [process(None)] * len(column)
    out = []
    last: Any = _processed  # no value is this function
    done: Any = None
    for value in column:
        if value is not last:
            last, done = value, process(value)
        out.append(done)
    return out


def _picker(names: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    if not names:
        return lambda values: ()
    if len(names) == 1:
        name = names[0]
        return lambda values: (values[name],)
    return operator.itemgetter(*names)


class Prepared:
    """One Core statement; `result` lists the columns it returns, in order."""

    def __init__(self, statement: Executable, result: Sequence[Column[Any]] = ()) -> None:
        self.statement = statement
        self.result = tuple(result)
        self._sqlite: _Compiled | None = None

    def _compile(self, dialect: Dialect) -> _Compiled:
        if self._sqlite is None:
            compiled = cast(
                SQLCompiler, cast(ClauseElement, self.statement).compile(dialect=dialect)
            )
            names = tuple(compiled.positiontup or ())
            binds = compiled.binds
            processors = [
                binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names
            ]
            self._sqlite = _Compiled(
                sql=str(compiled),
                names=names,
                defaults={k: b.value for k, b in binds.items() if not b.required},
                pick=_picker(names),
                convert=tuple(
                    (i, _none_known(p)) for i, p in enumerate(processors) if p is not None
                ),
                results=tuple(
                    c.type.dialect_impl(dialect).result_processor(dialect, None)
                    for c in self.result
                ),
            )
        return self._sqlite

    def _params(self, c: _Compiled, values: Mapping[str, Any]) -> Sequence[Any]:
        row = c.pick({**c.defaults, **values} if c.defaults else values)
        if not c.convert:
            return row
        params = list(row)
        for i, process in c.convert:
            params[i] = process(params[i])
        return params

    def rows(
        self, s: Session | Connection, values: Mapping[str, Any] | None = None
    ) -> list[tuple[Any, ...]]:
        """Execute and return every result row as a tuple of Python values."""
        conn = s.connection() if isinstance(s, Session) else s
        if conn.dialect.name != "sqlite":
            return [tuple(r) for r in conn.execute(self.statement, dict(values or {}))]
        c = self._compile(conn.dialect)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            raw = cursor.execute(c.sql, self._params(c, values or {})).fetchall()
        finally:
            cursor.close()
        convert = [(i, p) for i, p in enumerate(c.results) if p is not None]
        if not convert:
            return [tuple(r) for r in raw]
        out = []
        for r in raw:
            row = list(r)
            for i, p in convert:
                row[i] = p(row[i])
            out.append(tuple(row))
        return out

    def _params_many(
        self, c: _Compiled, values: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Any, ...]]:
        """Every parameter set: picked row by row in C, then each column that has a bind
        processor converted at once, once per distinct value in a run (an import's rows
        share their creation time, their empty JSON columns)."""
        try:
            rows = list(map(c.pick, values))
        except KeyError:  # a row leaves out a column that has a default
            rows = [c.pick({**c.defaults, **v}) for v in values]
        if not c.convert or not c.names:
            return rows
        columns: list[Sequence[Any]] = list(zip(*rows, strict=True))
        for i, process in c.convert:
            columns[i] = _processed(columns[i], process)
        return list(zip(*columns, strict=True))

    def many(self, s: Session | Connection, values: Sequence[Mapping[str, Any]]) -> None:
        """Execute once per parameter set (no results)."""
        if not values:
            return
        conn = s.connection() if isinstance(s, Session) else s
        if conn.dialect.name != "sqlite":
            conn.execute(self.statement, [dict(v) for v in values])
            return
        c = self._compile(conn.dialect)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            with collection_paused():
                cursor.executemany(c.sql, self._params_many(c, values))
        finally:
            cursor.close()

    def count(self, s: Session | Connection, values: Mapping[str, Any]) -> int:
        """Execute once (an UPDATE or DELETE) and return how many rows it changed."""
        conn = s.connection() if isinstance(s, Session) else s
        if conn.dialect.name != "sqlite":
            return int(getattr(conn.execute(self.statement, dict(values)), "rowcount", 0))
        c = self._compile(conn.dialect)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            return int(cursor.execute(c.sql, self._params(c, values)).rowcount)
        finally:
            cursor.close()

    def insert(self, s: Session | Connection, values: Mapping[str, Any]) -> int:
        """Execute an INSERT and return the new row's integer primary key."""
        conn = s.connection() if isinstance(s, Session) else s
        if conn.dialect.name != "sqlite":
            key = conn.execute(self.statement, dict(values)).inserted_primary_key
            assert key is not None
            return int(key[0])
        c = self._compile(conn.dialect)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(c.sql, self._params(c, values))
            return int(cursor.lastrowid)
        finally:
            cursor.close()
