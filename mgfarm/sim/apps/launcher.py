"""Launcher3 (com.android.launcher3): home screen, app drawer and the recents overview."""

from __future__ import annotations

from collections.abc import Callable

from mgfarm.sim.apps.base import MINUTE_MS, App, ScreenContext, ScreenFn
from mgfarm.sim.system.intents import DEFAULT, IntentFilter
from mgfarm.sim.ui.views import AppIcon, Button, Column, EditText, Icon, Row, Spacer, Stack, Text, View
from mgfarm.sim.ui.widgets import empty_state

PKG = "com.android.launcher3"
HOME = "com.android.launcher3.uioverrides.QuickstepLauncher"
RECENTS = "com.android.quickstep.RecentsActivity"
WALLPAPER = "gradient:#3A4A7A,#C06C84"
# Phone and Contacts by role: their packages depend on the device profile.
CALENDAR = "com.android.calendar"  # its icon shows the day of the month, as on a Pixel
HOTSEAT = ("dialer", "com.android.messaging", "contacts", "com.android.settings")


class Launcher(App):
    package = PKG
    label = "Quickstep"
    main_activity = HOME
    in_launcher = False
    intent_actions = {"android.intent.action.MAIN": HOME}  # `am start -a MAIN` alone goes home too
    intent_filters = (
        IntentFilter(HOME, ("android.intent.action.MAIN",), (DEFAULT, "android.intent.category.HOME")),
    )

    def screens(self) -> dict[str, ScreenFn]:
        return {HOME: self.home, RECENTS: self.recents}

    def launchable(self) -> list[App]:
        apps = self.device.services.apps
        return sorted((a for a in apps.values() if a.in_launcher), key=lambda a: a.label.lower())

    def icon_for(self, ctx: ScreenContext, app: App, label_color: str = "#FFFFFF") -> View:
        def launch() -> None:
            ctx.am.launch(app.package)

        return AppIcon(
            id="icon",
            text=app.label,
            desc=app.label,
            glyph=app.icon,
            color=app.icon_color,
            art=app.role or app.package,
            art_text=str(_today(ctx)) if app.package == CALENDAR else "",
            label_color=label_color,
            weight=1,
            on_click=launch,
            on_long_click=_no_op,
        )

    def grid(self, ctx: ScreenContext, apps: list[App], columns: int, label_color: str) -> list[View]:
        rows: list[View] = []
        for i in range(0, len(apps), columns):
            cells = [self.icon_for(ctx, a, label_color) for a in apps[i : i + columns]]
            cells += [Spacer(weight=1) for _ in range(columns - len(cells))]
            rows.append(Row(children=cells))
        return rows

    def home(self, ctx: ScreenContext) -> View:
        if ctx.state.get("drawer"):
            return self.drawer(ctx)
        ctx.edge_to_edge = True

        def swipe(direction: str) -> None:
            if direction == "up":
                ctx.state["drawer"] = True

        ctx.on_swipe(swipe)
        apps = self.launchable()
        hot = [a for a in apps if a.package in HOTSEAT or a.role in HOTSEAT]
        work = [a for a in apps if a not in hot]
        now = ctx.local_now(MINUTE_MS)
        glance = Column(
            id="search_container_workspace",
            pad=(24, 48, 24, 0),
            children=[
                Text(
                    id="smartspace_title",
                    text=now.strftime("%a, %b ") + str(now.day),
                    size=28,
                    color="#FFFFFF",
                ),
            ],
        )
        qsb = Row(
            id="search_container_hotseat",
            height=52,
            bg="#FFFFFF",
            radius=26,
            pad=(20, 0, 20, 0),
            spacing=12,
            desc="Search",
            on_click=lambda: self.open_drawer(ctx),
            children=[
                Icon(name="search", size=24, tint="#5F6368"),
                Text(text="Search", size=16, color="#5F6368", weight=1),
                Icon(name="mic", size=24, tint="#5F6368"),
            ],
        )
        return Column(
            id="launcher",
            bg=WALLPAPER,
            pad=(0, 28, 0, 48),
            children=[
                glance,
                Spacer(weight=1),
                Column(
                    id="workspace", pad=(8, 0, 8, 0), spacing=12, children=self.grid(ctx, work, 4, "#FFFFFF")
                ),
                Spacer(height=24),
                Column(
                    id="hotseat",
                    pad=(8, 0, 8, 8),
                    spacing=12,
                    children=[
                        *self.grid(ctx, hot, 4, "#FFFFFF"),
                        Column(pad=(16, 8, 16, 8), children=[qsb]),
                    ],
                ),
            ],
        )

    def open_drawer(self, ctx: ScreenContext) -> None:
        ctx.state["drawer"] = True

    def drawer(self, ctx: ScreenContext) -> View:
        def close() -> None:
            ctx.state.pop("drawer", None)
            ctx.set_fields({})

        ctx.on_back(close)
        ctx.on_swipe(lambda d: close() if d == "down" else None)
        query = ctx.field("search").strip().lower()
        apps = [a for a in self.launchable() if query in a.label.lower()]
        from mgfarm.sim.ui.views import Scroll

        return Column(
            id="apps_view",
            bg="surface",
            children=[
                Column(
                    pad=(16, 16, 16, 8),
                    children=[
                        EditText(
                            id="search_box_input",
                            key="search",
                            hint="Search apps",
                            text=ctx.field("search"),
                            style="search",
                        )
                    ],
                ),
                Scroll(
                    id="apps_list_view",
                    key="drawer",
                    weight=1,
                    pad=(8, 8, 8, 8),
                    spacing=12,
                    children=self.grid(ctx, apps, 4, "on_surface")
                    or [empty_state("search", "No apps found")],
                ),
            ],
        )

    def recents(self, ctx: ScreenContext) -> View:
        ctx.edge_to_edge = True
        tasks = ctx.am.recent_tasks()
        apps = self.device.services.apps

        def opener(pkg: str) -> None:
            ctx.am.launch(pkg)

        def clear_all() -> None:
            for task in list(ctx.am.recent_tasks()):
                ctx.am.force_stop(task.package)
            ctx.am.home()

        # A carousel, most recent first and centred, the next one peeking in from the right.
        cards: list[View] = []
        for task in tasks[:3]:
            app = apps.get(task.package)
            if app is None:
                continue
            cards.append(
                Column(
                    id="snapshot",
                    desc=app.label,
                    spacing=12,
                    width=280,
                    on_click=_bind(opener, app.package),
                    children=[
                        Row(
                            spacing=8,
                            justify="center",
                            children=[
                                Icon(name=app.icon, size=20, tint="#FFFFFF", circle=app.icon_color, width=32),
                                Text(id="title", text=app.label, size=14, medium=True, color="#FFFFFF"),
                            ],
                        ),
                        Stack(
                            bg="surface",
                            radius=24,
                            height=560,
                            children=[
                                Text(text=app.label, size=22, color="on_surface_variant", gravity="center")
                            ],
                        ),
                    ],
                )
            )
        body: View = (
            Row(pad=(65, 0, 0, 0), spacing=24, children=cards)
            if cards
            else Text(text="No recent items", size=16, color="#FFFFFF", gravity="center", pad=(0, 300, 0, 0))
        )
        return Column(
            id="overview_panel",
            bg="#202124",
            pad=(0, 96, 0, 72),
            children=[
                body,
                Spacer(weight=1),
                Row(
                    justify="center",
                    children=[Button(id="clear_all", text="Clear all", style="tonal", on_click=clear_all)],
                ),
            ],
        )


def _today(ctx: ScreenContext) -> int:
    return ctx.today().day


def _bind(fn: Callable[[str], None], arg: str) -> Callable[[], None]:
    return lambda: fn(arg)


def _no_op() -> None:
    """A long press on an icon picks it up (drag and shortcuts on a phone); it does not launch."""
