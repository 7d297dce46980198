"""uiautomator XML from a laid-out view tree, in the exact shape `uiautomator dump` writes."""

from __future__ import annotations

from mgfarm.sim.ui.views import EMPTY, View

# uiautomator never flags these containers as "not accessibility friendly" (NAF).
NAF_EXCLUDED = {
    "android.widget.GridView",
    "android.widget.GridLayout",
    "android.widget.ListView",
    "android.widget.TableLayout",
}
HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
# Opening tags of recent frames' nodes, by everything they are made of; cleared when their keys and
# tags pass this many characters (a key ~300, a tag ~450, a screen 50-150 nodes; a node holding a
# long text has both thousands long: 2048 entries by count held ~17 MiB in a worker of 32 devices).
TAGS_CHARS = 2 * 1024 * 1024
_TAGS: dict[tuple[object, ...], str] = {}
_tags_chars = 0


def escape(s: str) -> str:
    """Attribute escaping as KXmlSerializer does it (and dropping characters XML cannot hold)."""
    s = "".join(ch for ch in s if ch in "\t\n\r" or ord(ch) >= 0x20)
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


def resource_id(view: View, package: str) -> str:
    if not view.id or ":" in view.id:
        return view.id
    return f"{package}:id/{view.id}"


def class_name(view: View) -> str:
    name = getattr(view, "view_class", "") or view.klass
    return name


def _has_label(view: View) -> bool:
    return any(c.clip != EMPTY and (c.a11y_text or c.desc or _has_label(c)) for c in view.children)


def is_naf(view: View) -> bool:
    """Clickable, enabled, with no text or description on itself or any descendant."""
    if class_name(view) in NAF_EXCLUDED:
        return False
    if not (view.clickable and view.enabled) or view.a11y_text or view.desc:
        return False
    return not _has_label(view)


def b(value: bool) -> str:
    return "true" if value else "false"


def node_xml(
    view: View, index: int, package: str, out: list[str], keys: dict[int, str] | None = None
) -> None:
    """One node and its visible children. `keys` (by `id` of each view: `redraw.view_keys`, which
    name a view's type and every attribute its properties are made of) lets a node's opening tag
    come from the tags of earlier frames: a new frame changes a few views, and writing every
    node's attributes again was most of a dump (~0.5 ms for a 120-view screen)."""
    naf = is_naf(view)
    key = keys.get(id(view)) if keys is not None else None
    if key is None:
        out.append(open_tag(view, index, package, naf))
    else:
        known = (type(view), key, index, package, naf)
        tag = _TAGS.get(known)
        if tag is None:
            tag = open_tag(view, index, package, naf)
            _keep_tag(known, tag, len(key) + len(tag))
        out.append(tag)
    # Children the user cannot see are left out, but keep their index among all children, as uiautomator does.
    visible = [(i, c) for i, c in enumerate(view.children) if c.clip != EMPTY]
    if not visible:
        out.append(" />")
        return
    out.append(">")
    for i, c in visible:
        node_xml(c, i, package, out, keys)
    out.append("</node>")


def _keep_tag(known: tuple[object, ...], tag: str, chars: int) -> None:
    global _tags_chars
    if _tags_chars + chars > TAGS_CHARS:
        _TAGS.clear()
        _tags_chars = 0
    _TAGS[known] = tag
    _tags_chars += chars


def open_tag(view: View, index: int, package: str, naf: bool) -> str:
    """A node's `<node ...` with its attributes, up to the end of its bounds."""
    x0, y0, x1, y1 = view.clip
    flag = ' NAF="true"' if naf else ""
    return (
        f'<node{flag} index="{index}" text="{escape(view.a11y_text)}"'
        f' resource-id="{escape(resource_id(view, package))}"'
        f' class="{class_name(view)}" package="{package}" content-desc="{escape(view.desc)}"'
        f' checkable="{b(view.checkable)}" checked="{b(view.checked)}" clickable="{b(view.clickable)}"'
        f' enabled="{b(view.enabled)}" focusable="{b(view.focusable)}" focused="{b(view.focused)}"'
        f' scrollable="{b(view.scrollable)}" long-clickable="{b(view.long_clickable)}"'
        f' password="{b(view.password)}" selected="{b(view.selected)}" bounds="[{x0},{y0}][{x1},{y1}]"'
    )


def dump(windows: list[tuple[View, str]], rotation: int = 0, keys: dict[int, str] | None = None) -> str:
    """The whole hierarchy: one root node per window (app, then system UI), like `uiautomator dump`;
    bounds are in the rotated display's coordinates, as the display's `rotation` (0-3) shows it.
    `keys`: each view's key by its `id`, when known (see `node_xml`)."""
    out = [HEADER, f'<hierarchy rotation="{rotation}">']
    for i, (root, package) in enumerate(windows):
        node_xml(root, i, package, out, keys)
    out.append("</hierarchy>")
    return "".join(out)
