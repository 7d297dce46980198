"""Device profiles name Clock, Contacts, Phone and Files: Google's builds by default, AOSP's on `aosp`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.system.intents import Query, resolve
from mgfarm.sim.system.profiles import AOSP, GOOGLE, AppNames, app_names
from mgfarm.sim.system.props import profile_overrides


def boot(tmp: Path, profile: str) -> SimDevice:
    device = SimDevice(DeviceConfig("p", 5555, tmp / "d", tmp / "s", profile=profile))
    asyncio.run(device.boot())
    return device


@pytest.mark.parametrize(("profile", "names"), [("android13", GOOGLE), ("aosp", AOSP)])
def test_each_profile_installs_its_names(tmp_path: Path, profile: str, names: dict[str, AppNames]) -> None:
    device = boot(tmp_path, profile)
    apps = device.services.apps
    am = device.services.activities
    for role in ("clock", "contacts", "dialer", "files"):
        want = app_names(profile, role)
        assert want is names[role] and want.package in apps
        am.launch(want.package)
        assert am.resumed() == (want.package, want.main_activity)
    other = AOSP if names is GOOGLE else GOOGLE
    assert not {n.package for n in other.values()} & set(apps)
    # The clock's alarms live in its own package's data folder; the contacts provider never moves.
    clock = app_names(profile, "clock").package
    assert device.fs.host(f"/data/data/{clock}/databases/alarms.db").exists()
    assert device.services.providers.resolve("content://com.android.contacts/contacts")


def test_google_dialer_answers_dial_and_hosts_the_call_screen(tmp_path: Path) -> None:
    device = boot(tmp_path, "android13")
    query = Query("android.intent.action.DIAL", data="tel:5550100")
    assert resolve(device.services.apps, query) == (
        "com.google.android.dialer",
        "com.google.android.dialer.extensions.GoogleDialtactsActivity",
    )


def test_profiles_share_the_android13_properties_except_android14() -> None:
    assert profile_overrides("aosp") == {} == profile_overrides("android13")
    with pytest.raises(ValueError):
        app_names("android99", "clock")
