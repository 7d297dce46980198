"""Messages (com.android.messaging) over the telephony provider (mmssms.db: `sms`, `threads`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timezone
from functools import partial

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.apps.contacts import contacts_db
from mgfarm.sim.system.clock import instant
from mgfarm.sim.system.cursor import get_long
from mgfarm.sim.system.providers import Route, SqliteProvider
from mgfarm.sim.ui.views import Column, EditText, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import app_bar, chat_bubble, empty_state, fab, list_item

PKG = "com.android.messaging"
PROVIDER_PKG = "com.android.providers.telephony"
LIST = "com.android.messaging.ui.conversationlist.ConversationListActivity"
CONVERSATION = "com.android.messaging.ui.conversation.ConversationActivity"
INBOX, SENT = 1, 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS canonical_addresses (_id INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT);
CREATE TABLE IF NOT EXISTS threads (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER DEFAULT 0, message_count INTEGER DEFAULT 0,
  recipient_ids TEXT, snippet TEXT, snippet_cs INTEGER DEFAULT 0, read INTEGER DEFAULT 1,
  archived INTEGER DEFAULT 0, type INTEGER DEFAULT 0, error INTEGER DEFAULT 0,
  has_attachment INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS sms (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id INTEGER, address TEXT, person INTEGER, date INTEGER,
  date_sent INTEGER DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0, status INTEGER DEFAULT -1,
  type INTEGER, reply_path_present INTEGER, subject TEXT, body TEXT, service_center TEXT,
  locked INTEGER DEFAULT 0, sub_id INTEGER DEFAULT -1, error_code INTEGER DEFAULT -1, creator TEXT,
  seen INTEGER DEFAULT 0);
CREATE TRIGGER IF NOT EXISTS sms_to_thread AFTER INSERT ON sms WHEN NEW.thread_id IS NULL BEGIN
  INSERT INTO canonical_addresses (address) SELECT NEW.address
    WHERE NOT EXISTS (SELECT 1 FROM canonical_addresses WHERE address = NEW.address);
  INSERT INTO threads (recipient_ids) SELECT (SELECT _id FROM canonical_addresses WHERE address = NEW.address)
    WHERE NOT EXISTS (SELECT 1 FROM threads WHERE recipient_ids =
      (SELECT _id FROM canonical_addresses WHERE address = NEW.address));
  UPDATE sms SET thread_id = (SELECT _id FROM threads WHERE recipient_ids =
      (SELECT _id FROM canonical_addresses WHERE address = NEW.address)) WHERE _id = NEW._id;
END;
CREATE TRIGGER IF NOT EXISTS sms_thread_stats AFTER UPDATE OF thread_id ON sms BEGIN
  UPDATE threads SET message_count = (SELECT count(*) FROM sms WHERE thread_id = NEW.thread_id),
    date = (SELECT max(date) FROM sms WHERE thread_id = NEW.thread_id),
    snippet = (SELECT body FROM sms WHERE thread_id = NEW.thread_id ORDER BY date DESC, _id DESC LIMIT 1),
    read = (SELECT min(read) FROM sms WHERE thread_id = NEW.thread_id)
  WHERE _id = NEW.thread_id;
END;
CREATE TRIGGER IF NOT EXISTS sms_deleted AFTER DELETE ON sms BEGIN
  UPDATE threads SET message_count = message_count - 1 WHERE _id = OLD.thread_id;
  DELETE FROM threads WHERE _id = OLD.thread_id AND message_count <= 0;
END;
"""


def digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit())[-10:]


class Messages(App):
    package = PKG
    label = "Messages"
    main_activity = LIST
    icon = "message"
    icon_color = "#1A73E8"
    intent_actions = {"android.intent.action.SENDTO": CONVERSATION}
    provider_packages = (PROVIDER_PKG,)

    def create_data(self) -> None:
        sql_script(self.db_file("mmssms.db", PROVIDER_PKG), SCHEMA)

    def install(self) -> None:
        self.make_data()
        providers = self.device.services.providers
        path = lambda: self.db_file("mmssms.db", PROVIDER_PKG)  # noqa: E731
        routes = {
            "": Route("sms"),
            "inbox": Route("sms", where=f"type = {INBOX}", defaults={"type": INBOX}),
            "sent": Route("sms", where=f"type = {SENT}", defaults={"type": SENT}),
            "draft": Route("sms", where="type = 3", defaults={"type": 3}),
            "outbox": Route("sms", where="type = 4", defaults={"type": 4}),
            "conversations": Route("threads"),
        }
        space = self.device.fs.space
        providers.register("sms", SqliteProvider("sms", path, routes, space))
        providers.register(
            "mms-sms", SqliteProvider("mms-sms", path, {"conversations": Route("threads")}, space)
        )

    def screens(self) -> dict[str, ScreenFn]:
        return {LIST: self.conversations, CONVERSATION: self.conversation}

    def names(self) -> dict[str, str]:
        """Contact names by the last 10 digits of their numbers, to title conversations."""
        db = contacts_db(self.device)
        if db is None:
            return {}
        return {digits(c.phone): c.name for c in db.list() if c.phone}

    def send(self, ctx: ScreenContext, address: str, body: str) -> None:
        path = self.db_file("mmssms.db", PROVIDER_PKG)
        now = ctx.now_ms()
        sql(
            path,
            "INSERT INTO sms (address, body, date, date_sent, type, read, seen, status) "
            "VALUES (?, ?, ?, ?, ?, 1, 1, -1)",
            (address, body, now, now, SENT),
        )

    def conversations(self, ctx: ScreenContext) -> View:
        path = self.db_file("mmssms.db", PROVIDER_PKG)
        threads = sql(
            path,
            "SELECT t._id, c.address, t.snippet, t.date, t.read FROM threads t "
            "JOIN canonical_addresses c ON c._id = t.recipient_ids ORDER BY t.date DESC",
        )
        names = self.names()
        rows = [  # made as the list shows them
            partial(conversation_row, ctx, names, address, snippet, date, read)
            for _tid, address, snippet, date, read in threads
        ]
        return Stack(
            bg="surface",
            children=[
                Column(
                    children=[
                        app_bar("Messages", actions=[]),
                        Scroll(
                            id="list",
                            key="list",
                            weight=1,
                            pad=(0, 0, 0, 88),
                            rows=Rows.of(rows),
                            empty=empty_state(
                                "message", "Once you start a new conversation, you'll see it listed here"
                            ),
                        ),
                    ]
                ),
                fab(
                    "message",
                    "Start chat",
                    lambda: ctx.start(CONVERSATION, {"new": True}),
                    id="start_chat_fab",
                    label="Start chat",
                ),
            ],
        )

    def conversation(self, ctx: ScreenContext) -> View:
        address = str(ctx.extras.get("address") or ctx.extras.get("data", "")).removeprefix("smsto:")
        address = address.removeprefix("sms:")
        path = self.db_file("mmssms.db", PROVIDER_PKG)
        if not address:
            return self.new_conversation(ctx)
        name = self.names().get(digits(address), address)
        msgs = sql(
            path,
            "SELECT body, type, date FROM sms WHERE thread_id = (SELECT t._id FROM threads t JOIN "
            "canonical_addresses c ON c._id = t.recipient_ids WHERE c.address = ?) ORDER BY date, _id",
            (address,),
        )
        bubbles = [
            partial(
                chat_bubble,
                str(body or ""),
                kind != INBOX,
                text_id="message_text",
                width=300,
                sent=("primary_container", "on_primary_container"),
            )
            for body, kind, _date in msgs
        ]

        def send() -> None:
            body = ctx.field("compose").strip()
            if body:
                self.send(ctx, address, body)
                ctx.set_field("compose", "")
                ctx.state.setdefault("scroll", {})["messages"] = 0  # the new message in view

        return Column(
            bg="surface",
            children=[
                app_bar(name, back=ctx.finish),
                Scroll(
                    id="message_list",
                    key="messages",
                    weight=1,
                    pad=(0, 8, 0, 8),
                    from_end=True,  # a conversation opens at its newest message, and keeps it in view
                    rows=Rows.of(bubbles),
                ),
                Row(
                    pad=(12, 8, 8, 12),
                    spacing=8,
                    children=[
                        EditText(
                            id="compose_message_text",
                            key="compose",
                            hint="Text message",
                            text=ctx.field("compose"),
                            style="pill",
                            weight=1,
                            height=52,
                            on_submit=send,
                        ),
                        IconButton(
                            id="send_message_button",
                            name="send",
                            desc="Send SMS",
                            tint="primary",
                            on_click=send,
                        ),
                    ],
                ),
            ],
        )

    def new_conversation(self, ctx: ScreenContext) -> View:
        def go() -> None:
            to = ctx.field("to").strip()
            if not to:
                return
            db = contacts_db(self.device)
            match = [c for c in db.list(to) if c.phone] if db is not None else []
            address = match[0].phone if match and not digits(to) else to
            ctx.finish()
            ctx.start(CONVERSATION, {"address": address})

        return Column(
            bg="surface",
            children=[
                app_bar("New conversation", back=ctx.finish),
                Column(
                    pad=(16, 8, 16, 8),
                    children=[
                        EditText(
                            id="recipient_text_view",
                            key="to",
                            hint="Type names, phone numbers",
                            text=ctx.field("to"),
                            on_submit=go,
                        )
                    ],
                ),
                Row(pad=(16, 8, 16, 8), justify="end", children=[_button("Next", go)]),
            ],
        )


def conversation_row(
    ctx: ScreenContext, names: dict[str, str], address: str, snippet: str, date: object, read: object
) -> View:
    """A conversation: its contact's name (else its address), its latest message and its day."""
    name = names.get(digits(address or ""), address or "")
    return list_item(
        name,
        snippet or "",
        avatar=name or "?",
        on_click=_open(ctx, address),
        id="swipeableContent",
        title_id="conversation_name",
        subtitle_id="conversation_snippet",
        trailing=Text(text=_short_date(date), size=12, color="on_surface_variant", medium=not read),
    )


def _button(text: str, fn: Callable[[], None]) -> View:
    from mgfarm.sim.ui.views import Button

    return Button(id="next_button", text=text, on_click=fn)


def _open(ctx: ScreenContext, address: str) -> Callable[[], None]:
    return lambda: ctx.start(CONVERSATION, {"address": address})


def _short_date(ms: object) -> str:
    if not get_long(ms):
        return ""
    return instant(ms, timezone.utc).strftime("%b %-d")
