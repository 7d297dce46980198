"""Shared test configuration."""

import os

# Ray resolves "127.0.0.1" to the host's network address unless this is off; the test clusters must
# stay on loopback. Set before anything imports ray (Ray reads it at import, and its nodes inherit it).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
