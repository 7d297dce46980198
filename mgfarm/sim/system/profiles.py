"""Device profiles: which emulator image a device mirrors, and the package names of its system apps.

AndroidWorld's Android 13 image (google_apis) ships Google's builds of Clock, Contacts, Phone and Files,
so the default profiles name them as that image does; `aosp` keeps the AOSP builds' names. Only these
apps' package and launcher activity change: their other activities keep their class names (Google's
Contacts still runs com.android.contacts.activities.*), and content authorities and provider packages
(com.android.contacts, call_log, com.android.providers.contacts) are the platform's in every profile.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AppNames:
    """An app's package and launcher activity (full class name) in one profile."""

    package: str
    main_activity: str


AOSP = {
    "clock": AppNames("com.android.deskclock", "com.android.deskclock.DeskClock"),
    "contacts": AppNames("com.android.contacts", "com.android.contacts.activities.PeopleActivity"),
    "dialer": AppNames("com.android.dialer", "com.android.dialer.main.impl.MainActivity"),
    "files": AppNames("com.android.documentsui", "com.android.documentsui.files.FilesActivity"),
}
GOOGLE = {
    "clock": AppNames("com.google.android.deskclock", "com.android.deskclock.DeskClock"),
    "contacts": AppNames("com.google.android.contacts", "com.android.contacts.activities.PeopleActivity"),
    "dialer": AppNames(
        "com.google.android.dialer", "com.google.android.dialer.extensions.GoogleDialtactsActivity"
    ),
    "files": AppNames("com.google.android.documentsui", "com.android.documentsui.files.FilesActivity"),
}
# Profile -> app role -> names. android13 (the default) and android14 are the google_apis images.
APPS: dict[str, dict[str, AppNames]] = {"android13": GOOGLE, "android14": GOOGLE, "aosp": AOSP}
PROFILES = tuple(APPS)
DEFAULT = "android13"


def app_names(profile: str, role: str) -> AppNames:
    """The names of the app playing `role` (clock, contacts, dialer, files) on a device of `profile`."""
    if profile not in APPS:
        raise ValueError(f"unknown device profile '{profile}'; use one of {', '.join(PROFILES)}")
    return APPS[profile][role]


def package_of(profile: str, role: str) -> str:
    return app_names(profile, role).package
