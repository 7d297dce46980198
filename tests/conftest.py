"""Shared test configuration."""

import os

from hypothesis import settings

# Ray resolves "127.0.0.1" to the host's network address unless this is off; the test clusters must
# stay on loopback. Set before anything imports ray (Ray reads it at import, and its nodes inherit it).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

# CI runs the fuzzers on a fixed sequence of examples so a submission's result does not depend on luck;
# local runs keep exploring new inputs (and remember failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")
