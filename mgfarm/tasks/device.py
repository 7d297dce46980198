"""The part of `mgfarm.Device` that setup steps, checks and agents use (see docs/internals.md).

Written as a Protocol so the task engine depends on the contract, not on the controller's module.
"""

from __future__ import annotations

from typing import Any, Protocol

from mgfarm.shellwords import quote


class TaskDevice(Protocol):
    """Reads and writes a device over ADB only."""

    profile: str  # its device profile (android13, android14, aosp; '' unknown: the default's packages)

    def shell(self, cmd: str) -> str: ...

    def shell2(self, cmd: str) -> Any: ...  # .output (str) and .exit_code (int)

    def pull(self, path: str) -> bytes: ...

    # None: the file does not exist; with `limit`, each kept to `limit + 1` bytes (longer: over it)
    def pull_many(self, paths: list[str], limit: int | None = None) -> list[bytes | None]: ...

    def push(self, local_or_bytes: Any, path: str) -> Any: ...

    def push_many(self, files: list[tuple[bytes, str]]) -> None: ...  # (bytes, path), one session

    def content_query(
        self,
        uri: str,
        projection: list[str] | None = None,
        where: str | None = None,
        sort: str | None = None,
    ) -> list[dict[str, str | None]]: ...

    def content_insert(self, uri: str, values: dict[str, object]) -> None: ...

    def content_delete(self, uri: str, where: str | None = None) -> None: ...

    def sqlite(self, db: str, sql: str) -> list[list[str]]: ...

    def settings_get(self, namespace: str, key: str) -> str | None: ...

    def settings_put(self, namespace: str, key: str, value: str) -> Any: ...

    def current_app(self) -> tuple[str, str]: ...

    def snapshot_load(self, name: str) -> Any: ...

    def ui_elements(self) -> list[Any]: ...


__all__ = ["TaskDevice", "quote"]
