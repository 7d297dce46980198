"""Phone (com.google.android.dialer; aosp: com.android.dialer): dial pad and call log (calllog.db,
`content://call_log/calls`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import timezone
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.apps.contacts import contacts_db
from mgfarm.sim.apps.messages import PKG as MESSAGING
from mgfarm.sim.apps.messages import Messages
from mgfarm.sim.system.clock import instant
from mgfarm.sim.system.cursor import get_string
from mgfarm.sim.system.intents import IntentFilter
from mgfarm.sim.system.providers import Route, SqliteProvider
from mgfarm.sim.system.telephony import NUMBER, TelephonyError
from mgfarm.sim.ui.views import Column, Icon, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import empty_state, fab, list_item, tabs

PROVIDER_PKG = "com.android.providers.contacts"
INCALL = "com.android.incallui.InCallActivity"
DIAL, CALL, VIEW = (f"android.intent.action.{a}" for a in ("DIAL", "CALL", "VIEW"))
INCOMING, OUTGOING, MISSED = 1, 2, 3
SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, number TEXT, presentation INTEGER NOT NULL DEFAULT 1,
  post_dial_digits TEXT NOT NULL DEFAULT '', date INTEGER, duration INTEGER, data_usage INTEGER,
  type INTEGER, features INTEGER NOT NULL DEFAULT 0, subscription_id TEXT, new INTEGER, name TEXT,
  numbertype INTEGER, numberlabel TEXT, countryiso TEXT, voicemail_uri TEXT, is_read INTEGER,
  geocoded_location TEXT, lookup_uri TEXT, matched_number TEXT, normalized_number TEXT,
  photo_id INTEGER NOT NULL DEFAULT 0, formatted_number TEXT, last_modified INTEGER DEFAULT 0);
"""
KEYS = (
    ("1", ""),
    ("2", "ABC"),
    ("3", "DEF"),
    ("4", "GHI"),
    ("5", "JKL"),
    ("6", "MNO"),
    ("7", "PQRS"),
    ("8", "TUV"),
    ("9", "WXYZ"),
    ("*", ""),
    ("0", "+"),
    ("#", ""),
)
KIND = {INCOMING: "Incoming", OUTGOING: "Outgoing", MISSED: "Missed"}


class Dialer(App):
    role = "dialer"
    label = "Phone"
    icon = "phone"
    icon_color = "#0B8043"

    @property
    def intent_filters(self) -> tuple[IntentFilter, ...]:
        """The manifest's filters; the main activity's class differs between Google's and AOSP's dialer."""
        main = self.main_activity
        return (
            IntentFilter(main, (DIAL,)),
            IntentFilter(main, (DIAL, VIEW), schemes=("tel",)),
            # CALL goes through Telecom on a device; the in-call screen is where the call shows.
            IntentFilter(INCALL, (CALL,), schemes=("tel",)),
            IntentFilter(main, (VIEW,), mime_types=("vnd.android.cursor.dir/calls",)),
        )

    provider_packages = (PROVIDER_PKG,)  # calllog.db lives with the contacts provider

    def create_data(self) -> None:
        sql_script(self.db_file("calllog.db", PROVIDER_PKG), SCHEMA)

    def install(self) -> None:
        self.make_data()
        path = lambda: self.db_file("calllog.db", PROVIDER_PKG)  # noqa: E731
        self.device.services.providers.register(
            "call_log", SqliteProvider("call_log", path, {"calls": Route("calls")}, self.device.fs.space)
        )
        self.device.services.activities.listeners.append(self.place_requested_call)

    def place_requested_call(self) -> None:
        """A CALL intent (`am start -a CALL -d tel:N`) places its call when the in-call screen comes up."""
        record = self.device.services.activities.resumed_record()
        if record is None or record.package != self.package or record.activity != INCALL:
            return
        if record.extras.get("placed") or record.extras.get("incoming") or record.state.get("placed"):
            return
        record.state["placed"] = True
        data = str(record.extras.get("data", ""))
        number = data[4:] if data.startswith("tel:") else str(record.extras.get("number", ""))
        if NUMBER.fullmatch(number):
            with contextlib.suppress(TelephonyError):  # the modem is full: the screen shows, no call
                self.device.services.telephony.dial(number)

    def screens(self) -> dict[str, ScreenFn]:
        return {self.main_activity: self.main, INCALL: self.in_call}

    def call(self, ctx: ScreenContext, number: str) -> None:
        messaging = self.device.services.apps.get(MESSAGING)
        names = messaging.names() if isinstance(messaging, Messages) else {}
        digits = "".join(ch for ch in number if ch.isdigit())[-10:]
        sql(
            self.db_file("calllog.db", PROVIDER_PKG),
            "INSERT INTO calls (number, date, duration, type, new, is_read, name, countryiso) "
            "VALUES (?, ?, 0, ?, 0, 1, ?, 'US')",
            (number, ctx.now_ms(), OUTGOING, names.get(digits)),
        )
        if NUMBER.fullmatch(number):
            with contextlib.suppress(TelephonyError):
                self.device.services.telephony.dial(number, logged=True)
        ctx.start(INCALL, {"number": number, "name": names.get(digits, ""), "placed": True})

    def main(self, ctx: ScreenContext) -> View:
        if ctx.state.get("dialpad"):
            return self.dialpad(ctx)
        tab = int(ctx.state.get("tab", 1))

        def choose(i: int) -> None:
            ctx.state["tab"] = i

        rows, empty = [self.favourites, self.recents, self.contacts][tab](ctx)
        return Column(
            bg="surface",
            children=[
                Column(
                    pad=(16, 8, 16, 8),
                    children=[
                        Row(
                            height=56,
                            radius=28,
                            bg="surface_container_high",
                            pad=(16, 0, 16, 0),
                            spacing=16,
                            children=[
                                Icon(name="search", size=24),
                                Text(
                                    text="Search contacts & places",
                                    size=16,
                                    color="on_surface_variant",
                                    weight=1,
                                ),
                            ],
                        )
                    ],
                ),
                Stack(
                    weight=1,
                    children=[
                        Scroll(
                            id="list",
                            key=f"tab{tab}",
                            pad=(0, 0, 0, 88),
                            rows=Rows.of(rows),
                            empty=empty,
                        ),
                        fab("dialpad", "key pad", lambda: ctx.state.update(dialpad=True), id="dialpad_fab"),
                    ],
                ),
                tabs(("Favorites", "Recents", "Contacts"), tab, choose, ("star", "history", "person")),
            ],
        )

    def contact_list(self, starred: bool) -> list[tuple[str, str]]:
        db = contacts_db(self.device)
        if db is None:
            return []
        return [(c.name, c.phone) for c in db.list() if c.phone and (c.starred or not starred)]

    # A tab's rows, made as the list shows them, and what it shows without any.
    def favourites(self, ctx: ScreenContext) -> tuple[list[Callable[[], View]], View]:
        rows: list[Callable[[], View]] = [
            partial(contact_row, n, p, _caller(self, ctx, p)) for n, p in self.contact_list(True)
        ]
        return rows, empty_state("star", "No favorites yet")

    def contacts(self, ctx: ScreenContext) -> tuple[list[Callable[[], View]], View]:
        rows: list[Callable[[], View]] = [
            partial(contact_row, n, p, _caller(self, ctx, p)) for n, p in self.contact_list(False)
        ]
        return rows, empty_state("person", "No contacts")

    def recents(self, ctx: ScreenContext) -> tuple[list[Callable[[], View]], View]:
        calls = sql(
            self.db_file("calllog.db", PROVIDER_PKG),
            "SELECT number, name, type, date FROM calls ORDER BY date DESC, _id DESC LIMIT 50",
        )
        rows: list[Callable[[], View]] = [
            partial(
                call_row,
                get_string(number),
                get_string(name),
                kind,
                date,
                _caller(self, ctx, get_string(number)),
            )
            for number, name, kind, date in calls
        ]
        return rows, empty_state("history", "No recent calls")

    def dialpad(self, ctx: ScreenContext) -> View:
        number = ctx.field("digits")

        def press(d: str) -> Callable[[], None]:
            return lambda: ctx.set_field("digits", ctx.field("digits") + d)

        def close() -> None:
            ctx.state.pop("dialpad", None)
            ctx.set_fields({})

        ctx.on_back(close)

        def dial() -> None:
            if ctx.field("digits"):
                n = ctx.field("digits")
                close()
                self.call(ctx, n)

        keys: list[View] = []
        for r in range(4):
            row: list[View] = []
            for digit, letters in KEYS[r * 3 : r * 3 + 3]:
                row.append(
                    Column(
                        id=f"dialpad_key_{digit}",
                        desc=digit,
                        weight=1,
                        height=72,
                        on_click=press(digit),
                        children=[
                            Text(text=digit, size=32, gravity="center"),
                            Text(
                                text=letters,
                                size=11,
                                gravity="center",
                                medium=True,
                                color="on_surface_variant",
                            ),
                        ],
                    )
                )
            keys.append(Row(pad=(24, 0, 24, 0), children=row))
        return Column(
            bg="surface",
            children=[
                Column(weight=1, children=[]),
                Row(
                    height=96,
                    pad=(24, 0, 8, 0),
                    children=[
                        Text(id="digits", text=number, size=36, gravity="center", weight=1),
                        IconButton(
                            id="deleteButton",
                            name="backspace",
                            desc="backspace",
                            on_click=lambda: ctx.set_field("digits", ctx.field("digits")[:-1]),
                        ),
                    ],
                ),
                Column(
                    bg="surface_container",
                    radius=28,
                    pad=(0, 16, 0, 16),
                    spacing=4,
                    children=[
                        *keys,
                        Row(
                            justify="center",
                            pad=(0, 12, 0, 0),
                            children=[
                                IconButton(
                                    id="dialpad_floating_action_button",
                                    name="phone",
                                    desc="dial",
                                    width=64,
                                    height=64,
                                    bg="#0B8043",
                                    radius=32,
                                    tint="#FFFFFF",
                                    on_click=dial,
                                )
                            ],
                        ),
                    ],
                ),
            ],
        )

    def in_call(self, ctx: ScreenContext) -> View:
        """The call screen over the modem's call: ringing (answer, decline) or active (end call)."""
        data = str(ctx.extras.get("data", ""))
        number = str(ctx.extras.get("number", "")) or (data[4:] if data.startswith("tel:") else "")
        name = str(ctx.extras.get("name", "")) or number
        modem = self.device.services.telephony
        call = modem.find(number)
        ringing = call is not None and call.state == "incoming"

        def end() -> None:
            if call is not None and modem.find(number) is call:
                modem.hang_up(number)
            if ctx.record in (r for t in ctx.am.tasks() for r in t.records):
                ctx.finish()

        def answer() -> None:
            if ringing:
                modem.accept(number)

        status = (
            "Incoming call"
            if ringing
            else ("Calling…" if call is None or call.inbound is False else "Ongoing call")
        )
        buttons: list[View] = [
            IconButton(
                id="incall_end_call",
                name="call_end",
                size=40,
                desc="Decline" if ringing else "End call",
                width=72,
                height=72,
                bg="#B3261E",
                radius=36,
                tint="#FFFFFF",
                on_click=end,
            )
        ]
        if ringing:
            buttons.append(
                IconButton(
                    id="incoming_call_answer",
                    name="call",
                    size=40,
                    desc="Answer",
                    width=72,
                    height=72,
                    bg="#0B8043",
                    radius=36,
                    tint="#FFFFFF",
                    on_click=answer,
                )
            )
        return Column(
            bg="#1B1B1F",
            center=True,
            pad=(0, 120, 0, 80),
            spacing=16,
            children=[
                Text(id="contactgrid_contact_name", text=name, size=34, gravity="center", color="#FFFFFF"),
                Text(id="contactgrid_status_text", text=status, size=16, gravity="center", color="#C4C7C5"),
                Column(weight=1, children=[]),
                Row(justify="center", spacing=96, children=buttons),
            ],
        )


def contact_row(name: str, number: str, on_click: Callable[[], None]) -> View:
    """A contact (a favourite) to call."""
    return list_item(name, number, avatar=name, on_click=on_click)


def call_row(number: str, name: str, kind: Any, date: object, call: Callable[[], None]) -> View:
    """A call of the log: who, which way and when, with a button to call back."""
    when = instant(date, timezone.utc).strftime("%b %-d, %-I:%M %p")
    return list_item(
        name or number,
        f"{KIND.get(kind, 'Call')} · {when}",
        avatar=name or "#",
        id="call_log_row",
        title_id="primary_text",
        subtitle_id="secondary_text",
        trailing=IconButton(name="phone", desc=f"Call {name or number}", on_click=call, tint="primary"),
    )


def _caller(app: Dialer, ctx: ScreenContext, number: str) -> Callable[[], None]:
    return lambda: app.call(ctx, number)
