"""SharedPreferences files as Android keeps them: `/data/data/PKG/shared_prefs/NAME.xml`, a `<map>` of
typed entries (`<string name="k">v</string>`, `<boolean name="k" value="true" />`, `<int>`, `<long>`,
`<float>`, `<set>` of strings), written whole on every commit."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from mgfarm.sim.ui.kept import parsed_file

HEADER = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n"


# A larger file reads as empty (as a load that fails does): SharedPreferencesImpl holds the whole
# file in the app's heap, and the sim reads it on every frame that shows a preference.
MAX_PREFS_BYTES = 1024 * 1024


def read_prefs(path: Path) -> dict[str, Any]:
    """The file's entries by name. A file that is missing or does not parse reads as empty, as
    SharedPreferencesImpl starts with an empty map when it cannot load its file."""
    found = parsed_file(path, MAX_PREFS_BYTES, parse_prefs)
    return dict(found) if found is not None else {}


def parse_prefs(data: bytes) -> dict[str, Any]:
    """A SharedPreferences file's entries by name; empty if it does not parse."""
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, LookupError, ValueError):  # LookupError: a made-up encoding
        return {}
    found: dict[str, Any] = {}
    for el in root:
        name = el.attrib.get("name")
        if name is None:
            continue
        value = el.attrib.get("value", "")
        try:
            if el.tag == "string":
                found[name] = el.text or ""
            elif el.tag == "boolean":
                found[name] = value == "true"
            elif el.tag in ("int", "long"):
                found[name] = int(value)
            elif el.tag == "float":
                found[name] = float(value)
            elif el.tag == "set":
                found[name] = [item.text or "" for item in el if item.tag == "string"]
        except ValueError:
            continue  # XmlUtils fails on such an entry; the app reads its default for it
    return found


def write_prefs(path: Path, values: dict[str, Any]) -> None:
    """Write `values` as the whole file (ints as `<int>`, floats as `<float>`, lists as `<set>`)."""
    root = ET.Element("map")
    for name, value in values.items():
        if isinstance(value, bool):
            ET.SubElement(root, "boolean", name=name, value="true" if value else "false")
        elif isinstance(value, int):
            ET.SubElement(root, "int", name=name, value=str(value))
        elif isinstance(value, float):
            ET.SubElement(root, "float", name=name, value=repr(value))
        elif isinstance(value, list):
            items = ET.SubElement(root, "set", name=name)
            for item in value:
                ET.SubElement(items, "string").text = str(item)
        else:
            ET.SubElement(root, "string", name=name).text = str(value)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + ET.tostring(root, encoding="unicode") + "\n", encoding="utf-8")
