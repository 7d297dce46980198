"""Simple SMS Messenger (com.simplemobiletools.smsmessenger) over the telephony provider.

Like the real app it keeps no messages of its own: conversations are the provider's `content://sms`
rows (mmssms.db, kept by the telephony provider), grouped by address; names come from the contacts
provider; a sent message is inserted into `content://sms/sent`. It answers `SENDTO sms:NUMBER` with
the thread and the `sms_body` extra in the compose field, as the default SMS app does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timezone
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.apps.messages import PROVIDER_PKG
from mgfarm.sim.system.clipboard import paste
from mgfarm.sim.system.clock import instant
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.intents import IntentFilter
from mgfarm.sim.system.providers import ProviderError, ProviderRegistry
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import app_bar, chat_bubble, empty_state, fab, list_item, paste_menu

PKG = "com.simplemobiletools.smsmessenger"
MAIN = f"{PKG}.activities.MainActivity"
NEW = f"{PKG}.activities.NewConversationActivity"
THREAD = f"{PKG}.activities.ThreadActivity"
INBOX, SENT = 1, 2
SMS_SCHEMES = ("sms", "smsto", "mms", "mmsto")
# Telephony's SmsProvider orders by Sms.DEFAULT_SORT_ORDER when a query names no order.
SMS_DEFAULT_SORT = "date DESC"
TELEPHONY_DB = f"/data/data/{PROVIDER_PKG}/databases/mmssms.db"  # the provider's, where Messages keeps it
MAX_SHOWN = 2000  # characters of a body the screens lay out (a megabyte SMS must not stall frames)


@dataclass(frozen=True)
class Sms:
    id: int
    address: str
    body: str
    date: int
    type: int
    read: bool


def as_int(value: Any) -> int:
    """A provider value as an integer; rows written with `content insert` may hold any text."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def digits(number: str) -> str:
    """The last ten digits: how a conversation and a contact's number are matched (+1 or not)."""
    return "".join(ch for ch in number if ch.isdigit())[-10:]


def address_of(ctx: ScreenContext) -> str:
    raw = str(ctx.extras.get("address") or ctx.extras.get("data") or "")
    for scheme in SMS_SCHEMES:
        raw = raw.removeprefix(f"{scheme}:")
    return raw.removeprefix("//").strip()


class SimpleSmsMessenger(App):
    package = PKG
    label = "Simple SMS Messenger"
    main_activity = MAIN
    icon = "message"
    icon_color = "#F57C00"
    version_name = "5.19.1"
    intent_filters = (
        IntentFilter(
            THREAD,
            ("android.intent.action.SENDTO", "android.intent.action.VIEW", "android.intent.action.SEND"),
            schemes=SMS_SCHEMES,
        ),
    )

    def install(self) -> None:
        """No data of its own; the telephony provider's SMS routes get SmsProvider's default order."""
        try:
            provider, _ = self.providers().resolve("content://sms")
        except (ProviderError, KeyError):
            return
        for route in getattr(provider, "routes", {}).values():
            if route.table == "sms" and route.sort is None:
                route.sort = SMS_DEFAULT_SORT

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, NEW: self.new_conversation, THREAD: self.thread}

    # ---- the providers
    def providers(self) -> ProviderRegistry:
        return self.device.services.providers

    def query(self, uri: str, projection: list[str], sort: str) -> list[dict[str, Any]]:
        try:
            provider, _ = self.providers().resolve(uri)
            columns, rows = provider.query(uri, projection, None, [], sort)
        except (ProviderError, KeyError):
            return []
        return [dict(zip(columns, row, strict=False)) for row in rows]

    def messages(self) -> list[Sms]:
        """Every message, oldest first (kept while the telephony database is unchanged: a list of
        conversations read and grouped all of them on every frame, ~0.25 s at 20,000)."""
        try:
            db = self.device.fs.host(TELEPHONY_DB)
        except PathEscapeError:
            return self.read_messages()
        return self.unchanged_read(db, "messages", self.read_messages)

    def read_messages(self) -> list[Sms]:
        rows = self.query("content://sms", ["_id", "address", "body", "date", "type", "read"], "date, _id")
        return [
            Sms(
                as_int(r["_id"]),
                str(r["address"] or ""),
                str(r["body"] or "")[:MAX_SHOWN],
                as_int(r["date"]),
                as_int(r["type"]),
                bool(as_int(r["read"])),
            )
            for r in rows
        ]

    def contacts(self) -> list[tuple[str, str]]:
        """(name, number) of every phone number in the contacts provider, by name."""
        rows = self.query(
            "content://com.android.contacts/data/phones", ["display_name", "number"], "display_name"
        )
        return [(str(r["display_name"] or ""), str(r["number"] or "")) for r in rows if r["number"]]

    def names(self) -> dict[str, str]:
        return {digits(number): name for name, number in self.contacts()}

    def send(self, ctx: ScreenContext, address: str, body: str) -> None:
        now = ctx.now_ms()
        provider, _ = self.providers().resolve("content://sms/sent")
        provider.insert(
            "content://sms/sent",
            {"address": address, "body": body, "date": now, "date_sent": now, "read": 1, "seen": 1},
        )

    def mark_read(self, address: str) -> None:
        key = digits(address)
        try:
            provider, _ = self.providers().resolve("content://sms/inbox")
            unread = [
                m.id for m in self.messages() if m.type == INBOX and not m.read and digits(m.address) == key
            ]
            for sms_id in unread:
                provider.update(f"content://sms/inbox/{sms_id}", {"read": 1, "seen": 1}, None, [])
        except (ProviderError, KeyError):
            pass

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        latest: dict[str, Sms] = {}
        unread: dict[str, bool] = {}
        for m in self.messages():
            key = digits(m.address) or m.address
            latest[key] = m
            unread[key] = unread.get(key, False) or (m.type == INBOX and not m.read)
        names = self.names()

        def open_thread(address: str) -> Callable[[], None]:
            return lambda: ctx.start(THREAD, {"address": address})

        now = ctx.now_ms()
        rows = [  # made as the list shows them
            partial(self.conversation_row, m, names, now, unread[key], open_thread(m.address))
            for key, m in sorted(latest.items(), key=lambda kv: -kv[1].date)
        ]
        return Stack(
            bg="surface",
            children=[
                Column(
                    children=[
                        app_bar("Simple SMS Messenger"),
                        Scroll(
                            id="conversations_list",
                            key="list",
                            weight=1,
                            pad=(0, 0, 0, 88),
                            rows=Rows.of(rows),
                            empty=empty_state("message", "No stored conversations have been found"),
                        ),
                    ]
                ),
                fab("message", "New conversation", lambda: start_new(ctx), id="conversations_fab"),
            ],
        )

    def conversation_row(
        self, m: Sms, names: dict[str, str], now: int, unread: bool, on_click: Callable[[], None]
    ) -> View:
        """A conversation: its contact's name (else its address), its latest message and when."""
        name = names.get(digits(m.address), m.address)
        return list_item(
            name,
            m.body.replace("\n", " "),
            avatar=initial(name),
            on_click=on_click,
            id="conversation_frame",
            title_id="conversation_address",
            subtitle_id="conversation_body_short",
            trailing=Text(
                id="conversation_date",
                text=_when(m.date, now),
                size=12,
                medium=unread,
                color="on_surface" if unread else "on_surface_variant",
            ),
        )

    def new_conversation(self, ctx: ScreenContext) -> View:
        typed = ctx.field("to")
        contacts = self.contacts()
        wanted = typed.strip().lower()
        wanted_digits = "".join(ch for ch in wanted if ch.isdigit())
        shown = [
            (name, number)
            for name, number in contacts
            if not wanted
            or wanted in name.lower()
            or (wanted_digits and wanted_digits in "".join(ch for ch in number if ch.isdigit()))
        ]

        def open_thread(address: str) -> None:
            ctx.finish()
            ctx.start(THREAD, {"address": address})

        def confirm() -> None:
            text = ctx.field("to").strip()
            if not text:
                return
            named = [number for name, number in contacts if name.lower() == text.lower()]
            if named:
                open_thread(named[0])
            elif any(ch.isdigit() for ch in text):
                open_thread(text)
            else:
                ctx.toast("Enter a phone number or pick a contact")

        def pick(number: str) -> Callable[[], None]:
            return lambda: open_thread(number)

        rows = [partial(contact_row, name, number, pick(number)) for name, number in shown]
        return Column(
            bg="surface",
            children=[
                app_bar("New conversation", back=ctx.finish),
                Row(
                    pad=(16, 8, 8, 8),
                    spacing=8,
                    children=[
                        EditText(
                            id="new_conversation_address",
                            key="to",
                            hint="Add Contact or Number…",
                            text=typed,
                            weight=1,
                            on_submit=confirm,
                        ),
                        IconButton(
                            id="new_conversation_confirm", name="check", desc="Confirm", on_click=confirm
                        ),
                    ],
                ),
                Scroll(id="contacts_list", key="contacts", weight=1, rows=Rows.of(rows)),
            ],
        )

    def thread(self, ctx: ScreenContext) -> View:
        address = address_of(ctx)
        if not address:
            ctx.finish()
            return Column(bg="surface")
        if not ctx.state.get("loaded"):
            ctx.state["loaded"] = True
            ctx.set_fields({"compose": str(ctx.extras.get("sms_body") or "")})
            ctx.state["scroll"] = {"messages": 0}  # a thread opens at its newest message
            self.mark_read(address)
        key = digits(address) or address
        name = self.names().get(digits(address), address)
        bubbles = [partial(bubble, m) for m in self.messages() if (digits(m.address) or m.address) == key]

        def send() -> None:
            body = ctx.field("compose").strip()
            if not body:
                return
            self.send(ctx, address, body)
            ctx.set_field("compose", "")
            # Newest at the bottom, as a chat scrolls on send.
            ctx.state.setdefault("scroll", {})["messages"] = 0

        menu: list[View] = []
        if ctx.state.get("paste") and self.device.services.clipboard.text:

            def run_paste() -> None:
                paste(self.device, ctx.state.setdefault("fields", {}), "compose")
                ctx.state.pop("paste", None)

            ctx.on_back(lambda: ctx.state.pop("paste", None))
            menu.append(paste_menu(run_paste))
        toolbar = Row(
            id="thread_toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                IconButton(name="arrow_back", desc="Navigate up", on_click=ctx.finish, tint="on_surface"),
                Column(
                    weight=1,
                    pad=(4, 0, 0, 0),
                    children=[
                        Text(id="thread_title", text=name, size=20),
                        *(
                            [Text(text=address, size=13, color="on_surface_variant")]
                            if name != address
                            else []
                        ),
                    ],
                ),
            ],
        )
        return Column(
            bg="surface",
            children=[
                toolbar,
                Scroll(
                    id="thread_messages_list",
                    key="messages",
                    weight=1,
                    pad=(0, 8, 0, 8),
                    from_end=True,  # a chat keeps its newest message in view (the offset counts from there)
                    rows=Rows.of(bubbles),
                ),
                *menu,
                Row(
                    id="thread_send_message_holder",
                    pad=(12, 8, 8, 12),
                    spacing=8,
                    children=[
                        EditText(
                            id="thread_type_message",
                            key="compose",
                            on_long_click=lambda: ctx.state.update(paste=True),
                            hint="Type a message…",
                            text=ctx.field("compose"),
                            style="pill",
                            weight=1,
                            height=52,
                        ),
                        Button(
                            id="thread_send_message",
                            text="SMS",
                            icon="send",
                            desc="Send",
                            style="tonal",
                            height=52,
                            on_click=send,
                        ),
                    ],
                ),
            ],
        )


def initial(name: str) -> str:
    """The avatar's letter; a bare number gets "#"."""
    return name[:1].upper() if name[:1].isalpha() else "#"


def contact_row(name: str, number: str, on_click: Callable[[], None]) -> View:
    """A contact's number to start a conversation with."""
    return list_item(
        name,
        number,
        avatar=initial(name),
        on_click=on_click,
        id="item_contact_frame",
        title_id="item_contact_name",
        subtitle_id="item_contact_number",
    )


def start_new(ctx: ScreenContext) -> None:
    """Open the new-conversation screen with the keyboard on its address field, as the app does."""
    ctx.start(NEW)
    record = ctx.am.resumed_record()
    if record is not None and record.activity == NEW:
        record.state.update(focus="to", show_ime=True)


def _when(ms: int, now_ms: int) -> str:
    """A conversation's date: the time today, else the day."""
    t = instant(ms, timezone.utc)
    now = instant(now_ms, timezone.utc)
    if t.date() == now.date():
        return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"
    return t.strftime("%b %-d")


def bubble(m: Sms) -> View:
    """One message of a thread, on the right when it was sent."""
    return chat_bubble(
        m.body,
        m.type != INBOX,
        text_id="thread_message_body",
        width=280,
        sent=("primary", "on_primary"),
        holder_id="thread_message_holder",
    )
