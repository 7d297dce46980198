"""Moved to `mgfarm.adb.binary`; this name stays until every importer uses the new one."""

from mgfarm.adb.binary import adb_version, find_adb

__all__ = ["adb_version", "find_adb"]
