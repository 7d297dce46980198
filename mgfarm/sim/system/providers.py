"""Content providers: the authority registry and a SQLite-backed provider apps can reuse."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from mgfarm.sim.system import sqlsafe
from mgfarm.sim.system.space import Space

Value = str | int | float | bytes | None
Rows = list[tuple[Any, ...]]


class ProviderError(Exception):
    """A request a provider refuses (unknown URI, bad column); the message is what `content` prints."""


class Provider(Protocol):
    def query(
        self,
        uri: str,
        projection: Sequence[str] | None,
        selection: str | None,
        args: Sequence[Value],
        sort: str | None,
    ) -> tuple[list[str], Rows]: ...

    def insert(self, uri: str, values: dict[str, Value]) -> str: ...

    def update(
        self, uri: str, values: dict[str, Value], selection: str | None, args: Sequence[Value]
    ) -> int: ...

    def delete(self, uri: str, selection: str | None, args: Sequence[Value]) -> int: ...


def split_uri(uri: str) -> tuple[str, list[str]]:
    """(authority, path segments) of a `content://authority/a/b` URI."""
    parts = urlsplit(uri)
    if parts.scheme != "content" or not parts.netloc:
        raise ProviderError(f"Invalid content URI: {uri}")
    return parts.netloc, [seg for seg in parts.path.split("/") if seg]


class ProviderRegistry:
    """Authorities -> providers, as the activity manager resolves them for `content`."""

    def __init__(self) -> None:
        self._providers: dict[str, Provider] = {}

    def register(self, authority: str, provider: Provider) -> None:
        self._providers[authority] = provider

    def resolve(self, uri: str) -> tuple[Provider, list[str]]:
        """The provider for `uri` and the URI's path segments; ProviderError when none is registered."""
        authority, path = split_uri(uri)
        provider = self._providers.get(authority)
        if provider is None:
            raise ProviderError(f"Could not find provider: {authority}")
        return provider, path


@dataclass
class Route:
    """One URI path of a SQLite provider: the table or view it reads and the table it writes."""

    table: str
    where: str | None = None  # fixed selection, e.g. `type = 1` for content://sms/inbox
    insert_table: str | None = None  # default: `table`
    defaults: dict[str, Value] = field(default_factory=dict)  # values every insert gets
    id_column: str = "_id"
    sort: str | None = None  # the provider's default order when a query names none (SMS: date DESC)


class SqliteProvider:
    """A provider over one SQLite file: URI path -> route, `.../ID` selects one row by id.

    `db_path` is a callable so the provider follows the device root (snapshot loads replace files).
    Selections and sort orders come from the device user (`content --where`): connections are
    confined (sqlsafe), and the calls are safe to run in a worker thread (each opens its own).
    """

    def __init__(
        self, authority: str, db_path: Callable[[], Path], routes: dict[str, Route], space: Space
    ) -> None:
        self.authority = authority
        self.db_path = db_path
        self.routes = routes
        self.space = space  # the device's: a write may grow the database by the room it has left

    @contextmanager
    def _connect(self, writing: bool = False) -> Iterator[sqlite3.Connection]:
        path = self.db_path()
        if not path.exists():
            raise ProviderError(f"Unknown URI: database for {self.authority} is missing")
        try:
            conn, guard = sqlsafe.connect(path, space=self.space if writing else None)
        except sqlite3.Error as exc:
            raise ProviderError(str(exc)) from exc
        try:
            conn.execute("PRAGMA synchronous=OFF")  # no power loss to survive; saves an fsync per write
            guard.start()
            with conn:
                yield conn
        except sqlite3.Error as exc:
            raise ProviderError(sqlsafe.error_text(exc, guard)) from exc
        finally:
            sqlsafe.close(conn, guard)

    def route(self, uri: str) -> tuple[Route, str, str | None]:
        """(route, route path, row id or None) for a URI of this provider."""
        _, segments = split_uri(uri)
        path = "/".join(segments)
        if path in self.routes:
            return self.routes[path], path, None
        if segments and segments[-1].isdigit():
            base = "/".join(segments[:-1])
            if base in self.routes:
                return self.routes[base], base, segments[-1]
        raise ProviderError(f"Unknown URI: {uri}")

    @staticmethod
    def _where(route: Route, row_id: str | None, selection: str | None) -> tuple[str, list[Value]]:
        clauses: list[str] = []
        params: list[Value] = []
        if route.where:
            clauses.append(f"({route.where})")
        if row_id is not None:
            clauses.append(f"{route.id_column} = ?")
            params.append(int(row_id))
        if selection:
            clauses.append(f"({selection})")
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def query(
        self,
        uri: str,
        projection: Sequence[str] | None,
        selection: str | None,
        args: Sequence[Value],
        sort: str | None,
    ) -> tuple[list[str], Rows]:
        route, _, row_id = self.route(uri)
        where, params = self._where(route, row_id, selection)
        cols = ", ".join(projection) if projection else "*"
        sql = f"SELECT {cols} FROM {route.table}{where}"
        if sort or route.sort:
            sql += f" ORDER BY {sort or route.sort}"
        with self._connect() as conn:
            cur = conn.execute(sql, [*params, *args])
            rows = sqlsafe.fetch_bounded(cur)
            columns = [d[0] for d in cur.description or ()]
        return columns, rows

    def insert(self, uri: str, values: dict[str, Value]) -> str:
        route, path, _ = self.route(uri)
        merged = {**route.defaults, **values}
        table = route.insert_table or route.table
        names = ", ".join(merged)
        marks = ", ".join("?" for _ in merged)
        sql = (
            f"INSERT INTO {table} ({names}) VALUES ({marks})"
            if merged
            else f"INSERT INTO {table} DEFAULT VALUES"
        )
        with self._connect(writing=True) as conn:
            row_id = conn.execute(sql, list(merged.values())).lastrowid
        return f"content://{self.authority}/{path}/{row_id}"

    def update(self, uri: str, values: dict[str, Value], selection: str | None, args: Sequence[Value]) -> int:
        route, _, row_id = self.route(uri)
        if not values:
            return 0
        where, params = self._where(route, row_id, selection)
        sets = ", ".join(f"{name} = ?" for name in values)
        sql = f"UPDATE {route.insert_table or route.table} SET {sets}{where}"
        with self._connect(writing=True) as conn:
            return conn.execute(sql, [*values.values(), *params, *args]).rowcount

    def delete(self, uri: str, selection: str | None, args: Sequence[Value]) -> int:
        route, _, row_id = self.route(uri)
        where, params = self._where(route, row_id, selection)
        with self._connect(writing=True) as conn:
            return conn.execute(
                f"DELETE FROM {route.insert_table or route.table}{where}", [*params, *args]
            ).rowcount


class SettingsProvider(SqliteProvider):
    """`content://settings/<ns>` and, as SettingsProvider allows, `content://settings/<ns>/<name>`."""

    def route(self, uri: str) -> tuple[Route, str, str | None]:
        _, segments = split_uri(uri)
        if len(segments) == 2 and segments[0] in self.routes and not segments[1].isdigit():
            name = segments[1].replace("'", "''")
            return Route(segments[0], where=f"name = '{name}'"), segments[0], None
        return super().route(uri)
