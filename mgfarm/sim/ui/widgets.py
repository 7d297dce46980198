"""Composite Material 3 widgets built from views: app bar, list item, FAB, dialog, tabs, headers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mgfarm.sim.ui.views import (
    Avatar,
    Button,
    Column,
    Handler,
    Icon,
    IconButton,
    Row,
    Scrim,
    Spacer,
    Tab,
    Text,
    Toggle,
    View,
)


def app_bar(
    title: str,
    back: Handler | None = None,
    actions: Sequence[View] = (),
    large: bool = False,
    bg: str = "surface",
) -> View:
    """A top app bar (androidx Toolbar): navigate-up arrow, title, action buttons."""
    lead: list[View] = []
    if back is not None:
        lead.append(IconButton(name="arrow_back", desc="Navigate up", on_click=back, tint="on_surface"))
    if large:
        return Column(
            id="app_bar",
            bg=bg,
            children=[
                Row(height=64, pad=(4, 0, 4, 0), children=[*lead, Spacer(weight=1), *actions]),
                Text(id="title", text=title, size=32, pad=(16, 8, 16, 20), color="on_surface"),
            ],
        )
    return Row(
        id="toolbar",
        height=64,
        bg=bg,
        pad=(4, 0, 4, 0),
        children=[
            *lead,
            Text(id="title", text=title, size=22, weight=1, pad=(12 if not lead else 4, 0, 0, 0)),
            *actions,
        ],
    )


def editor(title: str, close: View, save: View, body: View, title_id: str = "") -> View:
    """A full-screen editor: close button, title and save button above a scrolling form."""
    bar = Row(
        id="toolbar",
        height=64,
        pad=(4, 0, 16, 0),
        spacing=8,
        children=[close, Text(id=title_id, text=title, size=22, weight=1), save],
    )
    return Column(bg="surface", children=[bar, body])


def action(icon: str, desc: str, on_click: Handler, id: str = "") -> View:
    return IconButton(id=id, name=icon, desc=desc, on_click=on_click, tint="on_surface_variant")


def list_item(
    title: str,
    subtitle: str = "",
    *,
    icon: str = "",
    avatar: str = "",
    avatar_color: str = "#7E57C2",
    trailing: View | None = None,
    on_click: Handler | None = None,
    on_long_click: Handler | None = None,
    id: str = "",
    title_id: str = "title",
    subtitle_id: str = "summary",
    selected: bool = False,
) -> View:
    """A one- or two-line list row (Settings preference, contact, file) with optional lead and trail."""
    lead: list[View] = []
    if icon:
        lead.append(Icon(name=icon, size=24, tint="on_surface_variant", width=40))
    elif avatar:
        lead.append(Avatar(letter=avatar, color=avatar_color))
    texts: list[View] = [Text(id=title_id, text=title, size=16, color="on_surface")]
    if subtitle:
        texts.append(Text(id=subtitle_id, text=subtitle, size=14, color="on_surface_variant"))
    return Row(
        id=id,
        height=72 if subtitle else 56,
        pad=(16, 0, 24 if trailing is not None else 16, 0),
        spacing=16,
        on_click=on_click,
        on_long_click=on_long_click,
        selected=selected,
        bg="secondary_container" if selected else None,
        children=[*lead, Column(weight=1, children=texts), *([trailing] if trailing is not None else [])],
    )


def switch_item(
    title: str,
    on: bool,
    toggle: Handler,
    subtitle: str = "",
    icon: str = "",
    switch_id: str = "android:id/switch_widget",
) -> View:
    """A preference row with a switch; tapping the row or the switch toggles it, as in Settings."""
    return list_item(
        title, subtitle, icon=icon, on_click=toggle, trailing=Toggle(id=switch_id, on=on, on_click=toggle)
    )


def header(text: str) -> View:
    return Text(text=text, size=14, medium=True, color="primary", pad=(16, 20, 16, 8))


def fab(icon: str, desc: str, on_click: Handler, id: str = "fab", label: str = "") -> View:
    """A floating action button (extended when it has a label), bottom end of its screen."""
    if label:
        return Button(
            id=id,
            text=label,
            desc=desc,
            icon=icon,
            style="tonal",
            height=56,
            align="bottom_end",
            on_click=on_click,
            width=None,
            radius=16,
        )
    return IconButton(
        id=id,
        name=icon,
        desc=desc,
        on_click=on_click,
        width=56,
        height=56,
        align="bottom_end",
        bg="primary_container",
        radius=16,
        tint="on_primary_container",
    )


def dialog(
    title: str,
    body: Sequence[View],
    buttons: Sequence[tuple[str, Handler]],
    dismiss: Handler,
    message: str = "",
) -> View:
    """A modal AlertDialog over a scrim; tapping outside the card dismisses it."""
    content: list[View] = [Text(id="android:id/alertTitle", text=title, size=24, lines=2)]
    if message:
        content.append(
            Text(id="android:id/message", text=message, size=14, color="on_surface_variant", lines=6)
        )
    content.extend(body)
    # AlertDialog numbers its buttons from the positive one (rightmost): button1, button2, ...
    row: list[View] = [
        Button(id=f"android:id/button{len(buttons) - i}", text=label, style="text", on_click=fn)
        for i, (label, fn) in enumerate(buttons)
    ]
    content.append(Row(justify="end", spacing=8, children=row))
    card = Column(
        id="android:id/content_panel",
        bg="surface_container_high",
        radius=28,
        pad=(24, 24, 24, 16),
        spacing=16,
        width=312,
        align="center",
        blocks=True,
        children=content,
    )
    return Scrim(on_click=dismiss, children=[card])


def tabs(
    labels: Sequence[str], selected: int, choose: Callable[[int], None], icons: Sequence[str] = ()
) -> View:
    """A TabLayout row (or a bottom navigation bar when icons are given)."""

    def pick(i: int) -> Handler:
        return lambda: choose(i)

    items: list[View] = [
        Tab(
            text=label,
            selected=i == selected,
            on_click=pick(i),
            weight=1,
            icon=icons[i] if icons else "",
            desc=label,
            height=80 if icons else 48,
        )
        for i, label in enumerate(labels)
    ]
    return Row(id="tabs", bg="surface_container" if icons else "surface", children=items)


def page(bar: View, body: View) -> View:
    """A list screen: its app bar above `body`, a Scroll of weight 1 that fills the rest."""
    return Column(bg="surface", children=[bar, body])


def chat_bubble(
    text: str, mine: bool, *, text_id: str, width: float, sent: tuple[str, str], holder_id: str = ""
) -> View:
    """A message of a conversation in a rounded bubble: on the right in the `sent` background and
    text colours when it was sent, on the left when it was received."""
    bg, color = sent if mine else ("surface_container_high", "on_surface")
    body = Text(
        id=text_id,
        text=text,
        size=16,
        lines=20,
        pad=(16, 10, 16, 10),
        radius=20,
        bg=bg,
        color=color,
        width=width,
    )
    return Row(id=holder_id, pad=(12, 4, 12, 4), justify="end" if mine else "start", children=[body])


def empty_state(icon: str, text: str) -> View:
    return Column(
        center=True,
        pad=(0, 120, 0, 0),
        spacing=16,
        children=[
            Icon(name=icon, size=64, tint="outline_variant", width=64),
            Text(
                text=text, size=16, color="on_surface_variant", gravity="center", lines=3, pad=(32, 0, 32, 0)
            ),
        ],
    )


def chip(text: str, on_click: Handler | None = None, selected: bool = False) -> View:
    return Button(
        text=text,
        style="tonal" if selected else "outlined",
        height=32,
        size=14,
        on_click=on_click,
        selected=selected,
    )


def paste_menu(on_paste: Handler) -> View:
    """The text selection toolbar a long press on a field opens when the clipboard holds text."""
    return Row(
        id="floating_toolbar",
        pad=(16, 0, 16, 0),
        children=[Button(id="android:id/paste", text="Paste", style="tonal", on_click=on_paste)],
    )
