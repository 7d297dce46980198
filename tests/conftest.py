"""Shared test configuration."""

import os

from hypothesis import HealthCheck, settings

# Ray resolves "127.0.0.1" to the host's network address unless this is off; the test clusters must
# stay on loopback. Set before anything imports ray (Ray reads it at import, and its nodes inherit it).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

# CI runs the fuzzers on a fixed sequence of examples so a submission's result does not depend on luck;
# local runs keep exploring new inputs (and remember failures in .hypothesis/).
# No deadline and no too-slow check in either: how long an example takes on a shared, loaded machine
# is not a property under test (speed is the benchmarks' business); the 200 ms default failed fuzzers
# under load.
UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("local", **UNTIMED)
settings.register_profile("ci", derandomize=True, print_blob=True, **UNTIMED)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "local")
