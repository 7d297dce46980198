"""The uiautomator2 server inside the simulated device (JSON-RPC over HTTP on device port 9008).

Importing this package registers the `app_process` launch with the shell.
"""

from mgfarm.sim.uiautomator import launcher  # noqa: F401  (registers app_process)
