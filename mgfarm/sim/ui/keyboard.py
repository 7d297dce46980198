"""The soft keyboard shown while a text field has focus; its keys type like `input text` does."""

from __future__ import annotations

from collections.abc import Callable

from mgfarm.sim.ui.views import Button, Column, Icon, IconButton, Row, View

ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
KEY_DP = 54
LANDSCAPE_KEY_DP = 42  # a phone's keyboard keeps the screen's width but gets shorter keys in landscape


def height_dp(key_height: float = KEY_DP) -> float:
    """The keyboard's height: four rows of keys, their gaps and the suggestion strip."""
    return 4 * key_height + 3 * 6 + 8 + 40


HEIGHT_DP = height_dp()


def keyboard(
    type_text: Callable[[str], None],
    key: Callable[[int], None],
    shifted: bool,
    toggle_shift: Callable[[], None],
    key_height: float = KEY_DP,
) -> View:
    """A Gboard-like QWERTY layout; `key` receives Android key codes (DEL 67, ENTER 66)."""

    def letter(ch: str) -> View:
        shown = ch.upper() if shifted else ch
        return Button(
            text=shown,
            style="key",
            bg="key",
            radius=6,
            height=key_height,
            weight=1,
            medium=False,
            size=22,
            on_click=lambda: type_text(shown),
        )

    def symbol(ch: str) -> View:
        return Button(
            text=ch,
            style="key",
            bg="key_special",
            radius=6,
            height=key_height,
            weight=1,
            size=20,
            on_click=lambda: type_text(ch),
        )

    def special(name: str, action: Callable[[], None], desc: str, weight: float = 1.5) -> View:
        return IconButton(
            name=name,
            desc=desc,
            bg="key_special",
            radius=6,
            height=key_height,
            width=None,
            weight=weight,
            tint="on_surface",
            size=22,
            on_click=action,
        )

    row1 = Row(spacing=6, children=[letter(c) for c in ROWS[0]])
    row2 = Row(spacing=6, pad=(18, 0, 18, 0), children=[letter(c) for c in ROWS[1]])
    row3 = Row(
        spacing=6,
        children=[
            special("shift", toggle_shift, "Shift"),
            *[letter(c) for c in ROWS[2]],
            special("backspace", lambda: key(67), "Delete"),
        ],
    )
    row4 = Row(
        spacing=6,
        children=[
            Button(
                text="?123",
                style="key",
                bg="key_special",
                radius=6,
                height=key_height,
                width=None,
                weight=1.5,
                size=15,
            ),
            symbol(","),
            Button(
                text="",
                style="key",
                bg="key",
                radius=6,
                height=key_height,
                weight=5,
                desc="Space",
                on_click=lambda: type_text(" "),
            ),
            symbol("."),
            IconButton(
                name="enter",
                desc="Enter",
                bg="primary_container",
                radius=6,
                height=key_height,
                width=None,
                weight=1.5,
                tint="on_primary_container",
                size=22,
                on_click=lambda: key(66),
            ),
        ],
    )
    toolbar = Row(
        height=40,
        pad=(12, 0, 12, 0),
        justify="between",
        children=[
            Icon(name="apps", size=20, tint="on_surface_variant"),
            Icon(name="mic", size=20, tint="on_surface_variant"),
        ],
    )
    return Column(
        id="com.android.inputmethod.latin:id/keyboard",
        bg="keyboard",
        pad=(6, 0, 6, 8),
        spacing=6,
        height=height_dp(key_height),
        children=[toolbar, row1, row2, row3, row4],
    )
