"""uiautomator UiSelector matching against the window hierarchy XML (the dict uiautomator2 sends)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

Node = ET.Element

# selector key -> (node attribute, how the selector value is compared)
_STRING_FIELDS: dict[str, tuple[str, str]] = {
    "text": ("text", "eq"),
    "textContains": ("text", "contains"),
    "textMatches": ("text", "matches"),
    "textStartsWith": ("text", "startswith"),
    "className": ("class", "eq"),
    "classNameMatches": ("class", "matches"),
    "description": ("content-desc", "eq"),
    "descriptionContains": ("content-desc", "contains"),
    "descriptionMatches": ("content-desc", "matches"),
    "descriptionStartsWith": ("content-desc", "startswith"),
    "packageName": ("package", "eq"),
    "packageNameMatches": ("package", "matches"),
    "resourceId": ("resource-id", "eq"),
    "resourceIdMatches": ("resource-id", "matches"),
}
_BOOL_FIELDS: dict[str, str] = {
    "checkable": "checkable",
    "checked": "checked",
    "clickable": "clickable",
    "longClickable": "long-clickable",
    "scrollable": "scrollable",
    "enabled": "enabled",
    "focusable": "focusable",
    "focused": "focused",
    "selected": "selected",
}
_COMPARE: dict[str, Callable[[str, str], bool]] = {
    "eq": lambda have, want: have == want,
    "contains": lambda have, want: want in have,
    "startswith": lambda have, want: have.startswith(want),
    "matches": lambda have, want: re.fullmatch(want, have, re.DOTALL) is not None,
}


class UnsupportedSelector(Exception):
    """A selector feature the simulated server does not implement (child/sibling chains)."""


def describe(selector: dict[str, Any]) -> str:
    """`UiSelector[TEXT=Save, CLASS=...]`-style text for error messages."""
    parts = [
        f"{key}={value}"
        for key, value in selector.items()
        if key not in ("mask", "childOrSibling", "childOrSiblingSelector")
    ]
    return "UiSelector[" + ", ".join(parts) + "]"


def _node_matches(node: Node, selector: dict[str, Any]) -> bool:
    for key, value in selector.items():
        if key in _STRING_FIELDS:
            attr, how = _STRING_FIELDS[key]
            try:
                if not _COMPARE[how](node.get(attr, ""), str(value)):
                    return False
            except re.error:
                return False
        elif key in _BOOL_FIELDS:
            if (node.get(_BOOL_FIELDS[key], "false") == "true") != bool(value):
                return False
        elif key == "index" and node.get("index", "0") != str(value):
            return False
    return True


def find_all(root: Node, selector: dict[str, Any]) -> list[Node]:
    """Every node matching the selector, in document order (instance picks among these)."""
    if selector.get("childOrSibling") or selector.get("childOrSiblingSelector"):
        raise UnsupportedSelector("child and sibling selectors are not supported by the simulated server")
    return [node for node in root.iter("node") if _node_matches(node, selector)]


def find_one(root: Node, selector: dict[str, Any]) -> Node | None:
    matches = find_all(root, selector)
    instance = int(selector.get("instance", 0) or 0)
    return matches[instance] if instance < len(matches) else None


def node_bounds(node: Node) -> dict[str, int]:
    nums = [int(n) for n in re.findall(r"-?\d+", node.get("bounds", ""))]
    left, top, right, bottom = ([*nums, 0, 0, 0, 0])[:4]
    return {"left": left, "top": top, "right": right, "bottom": bottom}


def obj_info(node: Node) -> dict[str, Any]:
    """The `objInfo` result uiautomator2 expects for one node."""

    def flag(name: str) -> bool:
        return node.get(name, "false") == "true"

    bounds = node_bounds(node)
    return {
        "bounds": bounds,
        "visibleBounds": dict(bounds),
        "childCount": len(node.findall("node")),
        "className": node.get("class", ""),
        "contentDescription": node.get("content-desc") or None,
        "packageName": node.get("package", ""),
        "resourceName": node.get("resource-id") or None,
        "text": node.get("text", ""),
        "checkable": flag("checkable"),
        "checked": flag("checked"),
        "clickable": flag("clickable"),
        "enabled": node.get("enabled", "true") == "true",
        "focusable": flag("focusable"),
        "focused": flag("focused"),
        "longClickable": flag("long-clickable"),
        "scrollable": flag("scrollable"),
        "selected": flag("selected"),
    }


def center(node: Node) -> tuple[int, int]:
    b = node_bounds(node)
    return (b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2
