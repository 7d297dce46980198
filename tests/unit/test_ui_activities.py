"""The activity manager: am start results, back stack, tasks for dumpsys, snapshot round trip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.sim_screen import boot_device


def test_start_resolves_relative_names_and_reports_missing_activities(tmp_path: Path) -> None:
    am = boot_device(tmp_path).services.activities
    assert am.start("com.android.settings", ".Settings") is None
    assert am.resumed() == ("com.android.settings", "com.android.settings.Settings")
    err = am.start("com.android.settings", ".Nope")
    assert err == (
        "Error type 3\nError: Activity class {com.android.settings/com.android.settings.Nope} does not exist."
    )
    assert am.start("com.example.missing", ".Main") is not None
    assert am.start(None, action="android.settings.WIFI_SETTINGS") is None
    assert am.resumed() == ("com.android.settings", "com.android.settings.Settings$WifiSettingsActivity")


def test_tasks_stack_back_and_force_stop(tmp_path: Path) -> None:
    am = boot_device(tmp_path).services.activities
    am.launch("com.android.settings")
    am.start("com.android.settings", ".Settings$DisplaySettingsActivity")
    am.launch("com.google.android.contacts")
    tasks = am.tasks()
    assert [t.package for t in tasks] == [
        "com.google.android.contacts",
        "com.android.settings",
        "com.android.launcher3",
    ]
    assert [r.short for r in tasks[1].records] == [
        "com.android.settings/.Settings",
        "com.android.settings/.Settings$DisplaySettingsActivity",
    ]
    am.back()  # contacts' root finishes: the task below comes forward
    assert am.resumed()[1].endswith("DisplaySettingsActivity")
    am.force_stop("com.android.settings")
    assert am.resumed()[0] == "com.android.launcher3"
    am.back()
    assert am.resumed()[0] == "com.android.launcher3"  # home stays


def test_export_import_round_trip(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    am = device.services.activities
    am.launch("com.google.android.contacts")
    am.resumed_record().state["fields"] = {"search": "ada"}
    saved = am.export_state()
    am.force_stop("com.google.android.contacts")
    am.import_state(saved)
    assert am.resumed()[0] == "com.google.android.contacts"
    assert am.resumed_record().state["fields"] == {"search": "ada"}
    wm = device.services.window
    wm.import_state(wm.export_state())
    assert wm.dump_xml().startswith("<?xml")


def test_home_intent_goes_home_without_stacking_a_launcher(tmp_path: Path) -> None:
    am = boot_device(tmp_path).services.activities
    am.launch("com.android.settings")
    assert am.start(None, action="android.intent.action.MAIN") is None
    assert am.resumed() == ("com.android.launcher3", "com.android.launcher3.uioverrides.QuickstepLauncher")
    assert am.start("com.android.launcher3", ".uioverrides.QuickstepLauncher") is None
    launcher = [t for t in am.tasks() if t.package == "com.android.launcher3"]
    assert len(launcher) == 1 and len(launcher[0].records) == 1


def test_snapshot_load_restores_screen_and_app_data(tmp_path: Path) -> None:
    from mgfarm.sim import snapshot
    from tests.unit.sim_screen import Screen

    s = Screen(boot_device(tmp_path))
    s.device.services.clock.freeze(True)
    s.device.services.clock.set_ms(1772616600000)
    s.am.launch("com.google.android.contacts")
    s.tap(desc="Create contact")
    s.type_into("Ada", text="First name")
    before_png, before_xml = s.wm.screencap_png(), s.wm.dump_xml()
    snapshot.save(s.device, "mid")
    s.tap(text="Save")
    s.wm.key(3)
    assert s.device.services.apps["com.google.android.contacts"].db.list()
    snapshot.load(s.device, "mid")
    assert s.am.resumed()[1].endswith("ContactEditorActivity")
    assert s.device.services.apps["com.google.android.contacts"].db.list() == []
    assert s.wm.dump_xml() == before_xml
    assert s.wm.screencap_png() == before_png


def test_pm_clear_of_the_contacts_provider_recreates_both_databases(tmp_path: Path) -> None:
    from tests.unit.sim_screen import Screen

    s = Screen(boot_device(tmp_path))
    s.device.services.apps["com.google.android.contacts"].db.create_contact("Ada", "", "1", "")
    assert s.device.services.packages.clear("com.android.providers.contacts")
    assert s.device.services.apps["com.google.android.contacts"].db.list() == []
    s.am.launch("com.google.android.dialer")
    assert s.has(text="No recent calls")  # calllog.db is back, empty


def test_an_app_failing_is_stopped_not_the_device(tmp_path: Path) -> None:
    from tests.unit.sim_screen import Screen

    s = Screen(boot_device(tmp_path))
    s.am.launch("com.google.android.dialer")
    s.device.fs.host("/data/data/com.android.providers.contacts/databases/calllog.db").unlink()
    s.device.fs.host("/data/data/com.android.providers.contacts/databases/calllog.db").mkdir()  # unreadable
    assert s.has(text="Phone keeps stopping")
    assert s.am.resumed()[0] == "com.android.launcher3"


def test_intents_resolve_by_action_type_and_data(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    am = device.services.activities
    insert = "android.intent.action.INSERT"
    assert (
        am.start(None, action=insert, mime_type="vnd.android.cursor.dir/contact", extras={"name": "Ada B"})
        is None
    )
    assert am.resumed() == (
        "com.google.android.contacts",
        "com.android.contacts.activities.ContactEditorActivity",
    )
    assert am.start(None, action=insert, mime_type="vnd.android.cursor.dir/event") is None
    assert am.resumed()[0] == "com.android.calendar"  # type: ignore[index]
    assert am.start(None, action="android.intent.action.DIAL", data="tel:123") is None
    assert am.resumed() == (
        "com.google.android.dialer",
        "com.google.android.dialer.extensions.GoogleDialtactsActivity",
    )
    assert am.start(None, action="android.intent.action.VIEW", data="content://contacts/people/") is None
    assert am.resumed()[0] == "com.google.android.contacts"  # type: ignore[index]
    home = am.start(None, action="android.intent.action.MAIN", categories=["android.intent.category.HOME"])
    assert home is None and am.resumed()[0] == "com.android.launcher3"  # type: ignore[index]
    assert am.start(None, action="android.intent.action.VIEW", data="https://example.com") is None
    assert am.resumed()[0] == "com.android.chrome"  # type: ignore[index]
    err = am.start(None, action="android.intent.action.VIEW", data="market://details?id=x")
    assert err == (
        "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW "
        "dat=market://details?id=x flg=0x10000000 }"
    )
    # Within a package that has no matching filter: the same error, not the package's launcher.
    err = am.start("com.android.chrome", action="android.intent.action.VIEW", data="market://details?id=x")
    assert err == (
        "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW "
        "dat=market://details?id=x flg=0x10000000 pkg=com.android.chrome }"
    )
    assert am.resumed()[0] == "com.android.chrome"  # type: ignore[index]  # still the page before


def test_type_patterns_match_as_intent_filters_do() -> None:
    from mgfarm.sim.system.intents import type_matches

    assert type_matches("image/*", "image/png") and type_matches("*/*", "text/plain")
    assert type_matches("vnd.android.cursor.dir/contact", "VND.android.cursor.dir/Contact")
    assert not type_matches("image/*", "video/mp4") and not type_matches("text/plain", "text/html")


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.none(), st.text(max_size=30)),
    st.one_of(st.none(), st.text(max_size=40)),
    st.one_of(st.none(), st.text(max_size=30)),
    st.lists(st.text(max_size=20), max_size=3),
)
def test_resolution_answers_any_intent(
    action: str | None, data: str | None, mime: str | None, categories: list[str]
) -> None:
    """Agents build intents freely: resolution finds an app or says no, never raises."""
    from mgfarm.sim.system.intents import Query, resolve

    if not APPS:
        import tempfile

        APPS.append(boot_device(Path(tempfile.mkdtemp(prefix="intents-"))).services.apps)
    hit = resolve(APPS[0], Query(action, data, mime, categories))
    assert hit is None or (hit[0] in APPS[0] and hit[1] in APPS[0][hit[0]].activities)


APPS: list[dict[str, Any]] = []
