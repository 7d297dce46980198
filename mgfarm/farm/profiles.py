"""Device profiles a farm can run: which emulator image its devices mirror, and so their app packages.

The simulated device implements them (mgfarm/sim/system/profiles.py; the farm reaches devices over
ADB only, so the names are listed here too and a unit test keeps both lists equal). `android13` is
AndroidWorld's pinned google_apis image (Google's Clock, Contacts, Phone and Files), `android14` its
Android 14 sibling, `aosp` the Android 13 image with AOSP's own apps (com.android.*).
"""

from __future__ import annotations

from mgfarm.errors import MgfarmError

PROFILES = ("android13", "android14", "aosp")
DEFAULT_PROFILE = "android13"


def check_profile(profile: str) -> str:
    """The profile, or one sentence listing the choices."""
    if profile not in PROFILES:
        raise MgfarmError(
            f"Unknown device profile {profile!r}; use one of: {', '.join(PROFILES)} "
            f"(default {DEFAULT_PROFILE}, AndroidWorld's google_apis image)."
        )
    return profile
