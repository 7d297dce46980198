"""Moved to `mgfarm.adb.server`; this name stays until every importer uses the new one."""

from mgfarm.adb.binary import adb_args
from mgfarm.adb.server import (
    PRIVATE_SERVER_ENV,
    announce,
    devices,
    ensure_server,
    kill_server,
    server_running,
)

__all__ = [
    "PRIVATE_SERVER_ENV",
    "adb_args",
    "announce",
    "devices",
    "ensure_server",
    "kill_server",
    "server_running",
]
