"""The uiautomator XML the simulated screen produces, checked against what `uiautomator dump` writes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from mgfarm.sim.ui.theme import Metrics
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, LayoutCtx, Text, compute_clip
from mgfarm.sim.ui.xmldump import dump
from tests.unit.sim_screen import boot_device, find

ATTR_ORDER = [
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
]


def layout(root: Column) -> Column:
    m = Metrics()
    root.layout(LayoutCtx(m, focus="name"), 0, 0, m.width, m.height)
    compute_clip(root, (0, 0, m.width, m.height))
    return root


def test_attribute_order_header_and_single_line() -> None:
    root = layout(
        Column(children=[Text(id="title", text="Hello & <you>"), Button(text="OK", on_click=lambda: None)])
    )
    xml = dump([(root, "com.example")])
    assert xml.startswith(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node "
    )
    assert "\n" not in xml
    for tag in re.findall(r"<node [^>]*?/?>", xml):
        names = re.findall(r' ([a-z-]+)="', tag)
        assert names == ATTR_ORDER
    assert 'text="Hello &amp; &lt;you&gt;"' in xml
    assert 'resource-id="com.example:id/title"' in xml
    ET.fromstring(xml)


def test_bounds_resource_ids_naf_and_hint_text() -> None:
    root = layout(
        Column(
            children=[
                IconButton(name="add", on_click=lambda: None),  # clickable with no label: NAF
                IconButton(name="add", desc="Add", on_click=lambda: None),
                EditText(key="name", hint="First name"),
                Text(id="android:id/title", text="x", height=48),
            ]
        )
    )
    xml = dump([(root, "com.example")])
    assert xml.count('NAF="true"') == 1
    assert re.search(
        r'<node NAF="true" index="0" text="" resource-id="" class="android.widget.ImageButton"', xml
    )
    edit = find(xml, text="First name")  # an empty field reports its hint, as since API 26
    assert edit.attrs["class"] == "android.widget.EditText"
    assert edit.attrs["focused"] == "true" and edit.attrs["focusable"] == "true"
    title = find(xml, rid="android:id/title")
    m = re.fullmatch(r"\[(\d+),(\d+)\]\[(\d+),(\d+)\]", title.attrs["bounds"])
    assert m and int(m.group(3)) == 1080 and int(m.group(4)) - int(m.group(2)) == round(48 * 420 / 160)


def test_home_screen_dump_has_launcher_icons_and_system_bars(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    wm = device.services.window
    assert "com.android.systemui" not in wm.dump_xml()  # by default only the active window
    xml = wm.dump_xml(all_windows=True)
    for label in ("Contacts", "Settings", "Phone", "Messages", "Clock", "Calendar", "Files"):
        icon = find(xml, text=label, desc=label)
        assert icon.attrs["package"] == "com.android.launcher3"
        assert icon.attrs["clickable"] == "true"
    back = find(xml, rid="com.android.systemui:id/back")
    assert back.attrs["content-desc"] == "Back" and back.attrs["package"] == "com.android.systemui"
    root = ET.fromstring(xml).find("node")
    assert root is not None and root.attrib["bounds"] == "[0,0][1080,2400]"


def test_offscreen_list_rows_are_not_dumped(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    contacts = device.services.apps["com.google.android.contacts"]
    for i in range(40):
        contacts.db.create_contact("Person", f"{i:02d}", "", "")
    device.services.activities.launch("com.google.android.contacts")
    xml = device.services.window.dump_xml()
    assert 'text="Person 00"' in xml
    assert 'text="Person 39"' not in xml
    lst = find(xml, rid="com.google.android.contacts:id/contact_list")
    assert lst.attrs["scrollable"] == "true"
