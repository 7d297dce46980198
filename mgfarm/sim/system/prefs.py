"""SharedPreferences files as Android keeps them: `/data/data/PKG/shared_prefs/NAME.xml`, a `<map>` of
typed entries (`<string name="k">v</string>`, `<boolean name="k" value="true" />`, `<int>`, `<long>`,
`<float>`, `<set>` of strings), written whole on every commit."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

HEADER = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n"


def read_prefs(path: Path) -> dict[str, Any]:
    """The file's entries by name. A file that is missing or does not parse reads as empty, as
    SharedPreferencesImpl starts with an empty map when it cannot load its file."""
    try:
        root = ET.fromstring(path.read_bytes())
    except (OSError, ET.ParseError, LookupError, ValueError):  # LookupError: a made-up encoding
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
