"""The `Catalog` object: built explicitly, nothing registered on import, each app declared once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mgfarm.catalog import APPS_FILE, TASKS_DIR, load_catalog
from mgfarm.device.actions import resolve_app
from mgfarm.errors import MgfarmError
from mgfarm.sim.system import profiles
from mgfarm.tasks.apps import load_apps

TEMPLATE = """\
- id: {id}
  apps: [settings]
  goal: "Turn Wi-Fi off."
  difficulty: L1
  setup:
    - settings: {{global: {{wifi_on: 1}}}}
  outcome: [{{setting: {{key: global.wifi_on, value: 0}}}}]
  oracle:
    - open_app: Settings
"""


def folder_with(tmp_path: Path, name: str, task_id: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "t.yaml").write_text(TEMPLATE.format(id=task_id))
    return folder


def test_a_fresh_interpreter_reads_app_state_with_a_catalog_it_loads_itself(tmp_path: Path) -> None:
    # Nothing imports the verifiers first: the contacts entity comes from the catalog built here.
    script = textwrap.dedent(
        f"""
        import json, sys
        from pathlib import Path
        from mgfarm.tasks.state import read_database
        from mgfarm.sim.apps.contacts import ContactsDb
        before = sorted(m for m in sys.modules if m.startswith("mgfarm.catalog.verifiers."))
        from mgfarm.catalog import load_catalog
        path = Path({str(tmp_path / "contacts2.db")!r})
        book = ContactsDb(lambda: path)
        book.create()
        book.create_contact("Ada", "Lovelace", "4155550101", "")
        tables = read_database("contacts", path, load_catalog([]).state.entities)
        [row] = tables["contacts.contact"].values()
        print(json.dumps([before, row["display_name"], list(row["phones"])]))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "MGFARM_TASKS"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout) == [[], "Ada Lovelace", ["4155550101"]]


def test_two_catalogs_with_different_template_folders_do_not_leak(tmp_path: Path) -> None:
    first = load_catalog([folder_with(tmp_path, "a", "mine.first")])
    second = load_catalog([folder_with(tmp_path, "b", "mine.second")])
    assert set(first.templates) == {"mine.first"} and set(second.templates) == {"mine.second"}
    with pytest.raises(MgfarmError, match=r"Unknown task 'mine\.first'"):
        second.get("mine.first")
    assert not {"mine.first", "mine.second"} & set(load_catalog([TASKS_DIR]).templates)
    # The checks, databases and apps are the bundled ones in both.
    assert first.checks == second.checks and "settings.equals" in first.checks
    assert first.state.databases.keys() == second.state.databases.keys() >= {"contacts", "sms", "alarms"}


def test_a_template_naming_an_undeclared_app_is_a_user_error(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, "a", "mine.first")
    path = folder / "t.yaml"
    path.write_text(path.read_text().replace("apps: [settings]", "apps: [solitaire]"))
    with pytest.raises(MgfarmError, match=r"t\.yaml:1: app 'solitaire' is not in the app table"):
        load_catalog([folder])


def test_every_app_is_declared_once_and_every_template_and_database_names_a_declared_app() -> None:
    catalog = load_catalog([TASKS_DIR])
    names = [n for app in catalog.apps for n in app.names()]
    assert len(names) == len(set(names)), "an app name, label or alias is used twice"
    for template in catalog.templates.values():
        assert set(template.apps) <= set(catalog.apps.apps), template.id
    for db in catalog.state.databases.values():
        assert db.app in catalog.apps.apps, db.name


@pytest.mark.parametrize(("app", "role"), [("clock", "clock"), ("contacts", "contacts"), ("phone", "dialer")])
def test_the_app_table_names_each_profile_s_package_as_the_device_profiles_do(app: str, role: str) -> None:
    decl = load_apps(APPS_FILE).find(app)
    assert decl.packages["google"] == profiles.package_of("android13", role)
    assert decl.packages["aosp"] == profiles.package_of("aosp", role)
    assert decl.package == profiles.package_of(profiles.DEFAULT, role)


class FakeDevice:
    def __init__(self, packages: list[str]) -> None:
        self.installed = packages

    def packages(self) -> list[str]:
        return self.installed


@pytest.mark.parametrize(
    ("installed", "name", "package"),
    [
        (["com.google.android.dialer"], "Phone", "com.google.android.dialer"),
        (["com.android.dialer"], "dialer", "com.android.dialer"),  # the AOSP profile's package
        (["com.android.messaging"], "SMS", "com.android.messaging"),
        (["com.example.notepad"], "Notepad", "com.example.notepad"),  # not in the table: by package name
    ],
)
def test_open_app_resolves_names_through_the_table_it_is_given(
    installed: list[str], name: str, package: str
) -> None:
    apps = load_apps(APPS_FILE).launcher_names()
    assert resolve_app(FakeDevice(installed), name, apps) == package  # type: ignore[arg-type]


def test_a_bad_app_table_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "apps.yaml"
    path.write_text("- name: x\n  label: X\n  package: a.b\n- name: x\n  label: Y\n  package: c.d\n")
    with pytest.raises(MgfarmError, match="app 'x' is declared twice"):
        load_apps(path)
    path.write_text("- name: x\n  label: X\n")
    with pytest.raises(MgfarmError, match="needs `package` or `packages`"):
        load_apps(path)


def test_app_data_paths_move_to_the_package_of_the_device_profile() -> None:
    state = load_catalog([TASKS_DIR]).state
    declared = state.databases["alarms"].path
    aosp_clock = profiles.package_of("aosp", "clock")
    # Setup steps, capture, checks and adversaries all ask here: on aosp the clock's data moves with it.
    assert state.database("alarms", "A check", "aosp") == f"/data/data/{aosp_clock}/databases/alarms.db"
    assert state.database(declared, "A check", "aosp") == f"/data/data/{aosp_clock}/databases/alarms.db"
    assert state.database("alarms", "A check", "android13") == declared == state.database("alarms", "", "")
    # Provider databases belong to packages that no profile renames.
    assert state.database("contacts", "A check", "aosp") == state.databases["contacts"].path
    docs = "Android/data/com.google.android.documentsui/files/x.txt"
    assert state.path_on(f"/sdcard/{docs}", "aosp") == f"/sdcard/{docs.replace('google.android', 'android')}"
    near = "/data/data/com.google.android.deskclock2/databases/alarms.db"  # another package
    assert state.path_on(near, "aosp") == near
    with pytest.raises(MgfarmError, match="unknown database 'alarm'"):
        state.database("alarm", "A check", "aosp")
