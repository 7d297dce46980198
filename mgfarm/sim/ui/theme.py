"""Material 3 colour roles (light and dark) and dp/sp conversion, as on stock Android 14."""

from __future__ import annotations

from dataclasses import dataclass

Color = tuple[int, int, int]


def hex_color(value: str) -> Color:
    v = value.lstrip("#")
    return (int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16))


@dataclass(frozen=True)
class Palette:
    """The colour roles the views use; names follow Material 3."""

    name: str
    primary: Color
    on_primary: Color
    primary_container: Color
    on_primary_container: Color
    secondary_container: Color
    on_secondary_container: Color
    tertiary_container: Color
    surface: Color
    surface_container: Color
    surface_container_high: Color
    on_surface: Color
    on_surface_variant: Color
    outline: Color
    outline_variant: Color
    error: Color
    inverse_surface: Color
    inverse_on_surface: Color
    scrim: Color
    keyboard: Color
    key: Color
    key_special: Color


LIGHT = Palette(
    name="light",
    primary=hex_color("#0B57D0"),
    on_primary=hex_color("#FFFFFF"),
    primary_container=hex_color("#D3E3FD"),
    on_primary_container=hex_color("#041E49"),
    secondary_container=hex_color("#C2E7FF"),
    on_secondary_container=hex_color("#001D35"),
    tertiary_container=hex_color("#C4EED0"),
    surface=hex_color("#F8F9FC"),
    surface_container=hex_color("#EDF0F5"),
    surface_container_high=hex_color("#E3E6EC"),
    on_surface=hex_color("#1B1C1F"),
    on_surface_variant=hex_color("#44474E"),
    outline=hex_color("#747775"),
    outline_variant=hex_color("#C4C7C5"),
    error=hex_color("#B3261E"),
    inverse_surface=hex_color("#303034"),
    inverse_on_surface=hex_color("#F2F0F4"),
    scrim=hex_color("#5E5F63"),
    keyboard=hex_color("#E8EAED"),
    key=hex_color("#FFFFFF"),
    key_special=hex_color("#C9CED6"),
)

DARK = Palette(
    name="dark",
    primary=hex_color("#A8C7FA"),
    on_primary=hex_color("#062E6F"),
    primary_container=hex_color("#0842A0"),
    on_primary_container=hex_color("#D3E3FD"),
    secondary_container=hex_color("#004A77"),
    on_secondary_container=hex_color("#C2E7FF"),
    tertiary_container=hex_color("#0F5223"),
    surface=hex_color("#131316"),
    surface_container=hex_color("#1E1F22"),
    surface_container_high=hex_color("#282A2D"),
    on_surface=hex_color("#E3E3E6"),
    on_surface_variant=hex_color("#C4C7C5"),
    outline=hex_color("#8E918F"),
    outline_variant=hex_color("#444746"),
    error=hex_color("#F2B8B5"),
    inverse_surface=hex_color("#E3E3E6"),
    inverse_on_surface=hex_color("#303034"),
    scrim=hex_color("#000000"),
    keyboard=hex_color("#202124"),
    key=hex_color("#3C4043"),
    key_special=hex_color("#2D2F31"),
)


def blend(a: Color, b: Color, t: float) -> Color:
    """`a` moved a fraction `t` toward `b` (for scrims and pressed tints without alpha images)."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


NAV_BAR_DP = 48  # the 3-button navigation bar's height (its width on the side in landscape)


@dataclass(frozen=True)
class Metrics:
    """Screen size and density; converts dp (and sp, with font scale 1) to pixels."""

    width: int = 1080
    height: int = 2400
    density: int = 420

    @property
    def scale(self) -> float:
        return self.density / 160.0

    def px(self, dp: float) -> int:
        return round(dp * self.density / 160.0)  # not via `scale`: layout calls this ~500 times a frame

    @property
    def status_bar(self) -> int:
        return self.px(28)

    @property
    def nav_bar(self) -> int:
        return self.px(NAV_BAR_DP)
