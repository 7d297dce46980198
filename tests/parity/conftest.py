"""The parity tests run the simulated device through the real adb server (the integration fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import adb_server, sim_device, sim_devices  # noqa: F401  (fixtures)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)
