"""A device boots without the libraries only its screens need; its first screenshot still works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import asyncio, sys
from pathlib import Path
from mgfarm.sim.device import DeviceConfig, SimDevice
root = Path(sys.argv[1])
device = SimDevice(DeviceConfig(name="cold", adb_port=5555, data_dir=root / "d", snapshot_dir=root / "s"))
asyncio.run(device.boot())
print("numpy at boot:", "numpy" in sys.modules)
png = device.services.window.screencap_png()
print("screenshot:", png[:8] == b"\\x89PNG\\r\\n\\x1a\\n" and len(png) > 1000)
"""


def test_boot_leaves_numpy_to_the_first_screenshot(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == ["numpy at boot: False", "screenshot: True"], done.stderr
