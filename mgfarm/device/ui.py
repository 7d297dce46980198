"""UI elements: the agent-facing list built from a uiautomator window hierarchy (XML)."""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, fields
from typing import Any
from xml.parsers.expat import ExpatError
from xml.parsers.expat import ParserCreate as xml_parser

from mgfarm.errors import MgfarmError

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class UIElement:
    """One on-screen node an agent can refer to by `index` (its position in the observed list)."""

    index: int
    text: str
    content_desc: str
    resource_id: str
    class_name: str
    package: str
    bounds: tuple[int, int, int, int]  # left, top, right, bottom in screen pixels
    clickable: bool
    long_clickable: bool
    editable: bool
    scrollable: bool
    checkable: bool
    checked: bool
    focused: bool
    enabled: bool
    selected: bool

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: its deep copies cost ~0.5 ms a step for 30 elements.
        data = {name: getattr(self, name) for name in FIELD_NAMES}
        data["bounds"] = list(self.bounds)
        return data

    def describe(self) -> str:
        """One line for text-only agents: index, class, label and state."""
        label = self.text or self.content_desc or self.resource_id
        flags = [
            name
            for name, on in (
                ("clickable", self.clickable),
                ("editable", self.editable),
                ("scrollable", self.scrollable),
                ("checked", self.checked),
            )
            if on
        ]
        short_class = self.class_name.rsplit(".", 1)[-1]
        return f"[{self.index}] {short_class} {label!r} {' '.join(flags)}".rstrip()


FIELD_NAMES = tuple(f.name for f in fields(UIElement))


def parse_bounds(value: str) -> tuple[int, int, int, int]:
    m = _BOUNDS_RE.fullmatch(value.strip())
    if not m:
        return (0, 0, 0, 0)
    left, top, right, bottom = (int(g) for g in m.groups())
    return left, top, right, bottom


def _flag(node: ET.Element, name: str) -> bool:
    return node.get(name, "false") == "true"


def _is_meaningful(node: ET.Element) -> bool:
    """Keep nodes an agent can read or act on; drop empty layout containers."""
    if node.get("text") or node.get("content-desc"):
        return True
    return any(
        _flag(node, name) for name in ("clickable", "long-clickable", "scrollable", "checkable", "focusable")
    ) or "EditText" in node.get("class", "")


def parse_hierarchy(xml: str) -> list[UIElement]:
    """The meaningful nodes of a uiautomator dump, in document order, indexed from 0."""
    return list(_parse_cached(xml))


@functools.lru_cache(maxsize=256)
def _parse_cached(xml: str) -> tuple[UIElement, ...]:
    # Replicas in the same state return the same XML; elements are frozen, so sharing them is safe.
    return tuple(_parse(xml))


# A node's start tag up to its first '>'; that '>' may be in a quoted value (legal in XML), and the
# piece then leaves a quote open and does not parse alone.
_NODE_TAG = re.compile(r"<node[\s/>][^>]*>")
# The encoding an XML declaration names.
_DECLARED_ENCODING = re.compile(r"""^<\?xml\s[^>]*?encoding\s*=\s*["']([^"']*)""")


def _parse(xml: str) -> list[UIElement]:
    """The meaningful nodes, from each node's start tag when that is what the document's parse
    gives (a new screen is mostly the nodes of one seen before: ~1 ms -> ~0.3 ms for 50 nodes)."""
    text = xml.strip()
    data = text.encode("utf-8")
    try:
        xml_parser(namespace_separator="}").Parse(data, True)  # well-formed, as ElementTree checks
    except (ExpatError, LookupError) as exc:  # LookupError: an encoding Python does not know
        raise _unreadable(exc) from exc
    # A DTD (entities), a comment, CDATA or a processing instruction may hold or change a start
    # tag, namespaces rename attributes, another encoding reads the bytes otherwise: the tree then.
    declared = _DECLARED_ENCODING.match(text)
    if (
        "<!" in text
        or text.count("<?") > 1
        or "xmlns" in text
        or (declared is not None and declared.group(1).lower() != "utf-8")
    ):
        return _parse_tree(data)
    elements: list[UIElement] = []
    try:
        for tag in _NODE_TAG.findall(text):
            element = _node_element(tag, len(elements))
            if element is not None:
                elements.append(element)
    except ET.ParseError:  # a '>' in a value cut a tag short
        return _parse_tree(data)
    return elements


@functools.lru_cache(maxsize=4096)
def _node_element(tag: str, index: int) -> UIElement | None:
    """The element a node's start tag `tag` gives at `index` (None: not kept), as `_parse_tree`;
    ET.ParseError when `tag` is not a whole start tag. Successive screens share most nodes."""
    node = ET.fromstring(tag if tag.endswith("/>") else tag[:-1] + "/>")
    return _element(node, index)


def _parse_tree(data: bytes) -> list[UIElement]:
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, LookupError) as exc:
        raise _unreadable(exc) from exc
    elements: list[UIElement] = []
    for node in root.iter("node"):
        element = _element(node, len(elements))
        if element is not None:
            elements.append(element)
    return elements


def _unreadable(exc: Exception) -> MgfarmError:
    return MgfarmError(f"The device returned an unreadable UI hierarchy ({exc}); retry the dump.")


def _element(node: ET.Element, index: int) -> UIElement | None:
    """The element of `node` at `index`; None for a node an agent cannot read or touch."""
    if not _is_meaningful(node):
        return None
    bounds = parse_bounds(node.get("bounds", ""))
    if bounds[2] <= bounds[0] or bounds[3] <= bounds[1]:
        return None  # off-screen or zero-size: not something an agent can touch
    class_name = node.get("class", "")
    return UIElement(
        index=index,
        text=node.get("text", ""),
        content_desc=node.get("content-desc", ""),
        resource_id=node.get("resource-id", ""),
        class_name=class_name,
        package=node.get("package", ""),
        bounds=bounds,
        clickable=_flag(node, "clickable"),
        long_clickable=_flag(node, "long-clickable"),
        editable="EditText" in class_name,
        scrollable=_flag(node, "scrollable"),
        checkable=_flag(node, "checkable"),
        checked=_flag(node, "checked"),
        focused=_flag(node, "focused"),
        enabled=node.get("enabled", "true") == "true",
        selected=_flag(node, "selected"),
    )
