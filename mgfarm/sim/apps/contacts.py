"""Contacts (com.google.android.contacts; aosp: com.android.contacts) and its provider (contacts2.db).

The provider package (com.android.providers.contacts) and authority are the platform's in every profile.

The schema keeps AOSP's shape: `raw_contacts`, `data` rows typed by `mimetypes`, `contacts`, and views
behind `content://com.android.contacts/...` and the legacy `content://contacts/phones`. Triggers do
what ContactsProvider2 does on insert (aggregate a raw contact into a contact, derive display_name),
so `content insert` from a task and a save from the UI leave the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mgfarm.sim.apps import app_for
from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_insert, sql_script
from mgfarm.sim.system.intents import IntentFilter
from mgfarm.sim.system.providers import Route, SqliteProvider
from mgfarm.sim.ui.views import Column, EditText, Icon, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, app_bar, dialog, editor, empty_state, fab, header, list_item

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

PROVIDER_PKG = "com.android.providers.contacts"
PEOPLE = "com.android.contacts.activities.PeopleActivity"
DETAIL = "com.android.contacts.quickcontact.QuickContactActivity"
EDITOR = "com.android.contacts.activities.ContactEditorActivity"
NAME = "vnd.android.cursor.item/name"
PHONE = "vnd.android.cursor.item/phone_v2"
EMAIL = "vnd.android.cursor.item/email_v2"
MIMETYPES = (
    EMAIL,
    "vnd.android.cursor.item/im",
    "vnd.android.cursor.item/nickname",
    "vnd.android.cursor.item/organization",
    PHONE,
    "vnd.android.cursor.item/sip_address",
    NAME,
    "vnd.android.cursor.item/postal-address_v2",
    "vnd.android.cursor.item/identity",
    "vnd.android.cursor.item/photo",
    "vnd.android.cursor.item/group_membership",
    "vnd.android.cursor.item/note",
    "vnd.android.cursor.item/website",
)
DATA_COLS = ", ".join(f"data{i}" for i in range(1, 16))
NEW_DATA = ", ".join(f"NEW.data{i}" for i in range(1, 16))
# Phone.TYPE_* and the labels Google Contacts' editor offers for them (its Custom type is not simulated).
PHONE_TYPES = {
    "Mobile": 2,
    "Work": 3,
    "Home": 1,
    "Main": 12,
    "Work fax": 4,
    "Home fax": 5,
    "Pager": 6,
    "Other": 7,
}
PHONE_LABELS = {v: k for k, v in PHONE_TYPES.items()}
AVATAR_COLORS = ("#7E57C2", "#1E88E5", "#00897B", "#F4511E", "#6D4C41", "#C2185B", "#3949AB", "#558B2F")

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS mimetypes (_id INTEGER PRIMARY KEY AUTOINCREMENT, mimetype TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS contacts (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, name_raw_contact_id INTEGER, photo_id INTEGER,
  starred INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0,
  has_phone_number INTEGER NOT NULL DEFAULT 0, lookup TEXT, contact_last_updated_timestamp INTEGER);
CREATE TABLE IF NOT EXISTS raw_contacts (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, account_id INTEGER, account_name TEXT, account_type TEXT,
  sourceid TEXT, version INTEGER NOT NULL DEFAULT 1, dirty INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0, contact_id INTEGER, starred INTEGER NOT NULL DEFAULT 0,
  pinned INTEGER NOT NULL DEFAULT 0, times_contacted INTEGER NOT NULL DEFAULT 0, display_name TEXT,
  display_name_alt TEXT, display_name_source INTEGER NOT NULL DEFAULT 0, sort_key TEXT);
CREATE TABLE IF NOT EXISTS data (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, package_id INTEGER, mimetype_id INTEGER NOT NULL,
  raw_contact_id INTEGER NOT NULL, is_read_only INTEGER NOT NULL DEFAULT 0,
  is_primary INTEGER NOT NULL DEFAULT 0, is_super_primary INTEGER NOT NULL DEFAULT 0,
  data_version INTEGER NOT NULL DEFAULT 0, {", ".join(f"data{i} TEXT" for i in range(1, 16))});
CREATE TRIGGER IF NOT EXISTS raw_contacts_aggregate AFTER INSERT ON raw_contacts WHEN NEW.contact_id IS NULL
BEGIN
  INSERT INTO contacts (name_raw_contact_id, starred, lookup) VALUES (NEW._id, NEW.starred, 'l' || NEW._id);
  UPDATE raw_contacts SET contact_id = last_insert_rowid() WHERE _id = NEW._id;
END;
CREATE TRIGGER IF NOT EXISTS raw_contacts_starred AFTER UPDATE OF starred ON raw_contacts BEGIN
  UPDATE contacts SET starred = NEW.starred WHERE _id = NEW.contact_id;
END;
CREATE TRIGGER IF NOT EXISTS contacts_starred AFTER UPDATE OF starred ON contacts BEGIN
  UPDATE raw_contacts SET starred = NEW.starred WHERE contact_id = NEW._id;
END;
CREATE TRIGGER IF NOT EXISTS raw_contacts_deleted AFTER DELETE ON raw_contacts BEGIN
  DELETE FROM data WHERE raw_contact_id = OLD._id;
  DELETE FROM contacts WHERE _id = OLD.contact_id
    AND NOT EXISTS (SELECT 1 FROM raw_contacts WHERE contact_id = OLD.contact_id);
END;
CREATE TRIGGER IF NOT EXISTS contacts_deleted AFTER DELETE ON contacts BEGIN
  DELETE FROM raw_contacts WHERE contact_id = OLD._id;
END;
-- ContactsProvider2's own indexes (ContactsDatabaseHelper): a contact's rows are found by key, where
-- every list of contacts scanned the whole data table for each contact (20,000: ~20 s a frame).
CREATE INDEX IF NOT EXISTS raw_contacts_contact_id_index ON raw_contacts (contact_id);
CREATE INDEX IF NOT EXISTS data_raw_contact_id ON data (raw_contact_id);
CREATE VIEW IF NOT EXISTS view_data AS
  SELECT data._id AS _id, data.raw_contact_id AS raw_contact_id, raw_contacts.contact_id AS contact_id,
         mimetypes.mimetype AS mimetype, data.is_primary AS is_primary,
         data.is_super_primary AS is_super_primary,
         {", ".join(f"data.data{i} AS data{i}" for i in range(1, 16))},
         raw_contacts.display_name AS display_name, raw_contacts.starred AS starred
  FROM data JOIN mimetypes ON mimetypes._id = data.mimetype_id
            JOIN raw_contacts ON raw_contacts._id = data.raw_contact_id;
CREATE TRIGGER IF NOT EXISTS view_data_insert INSTEAD OF INSERT ON view_data BEGIN
  INSERT OR IGNORE INTO mimetypes (mimetype) VALUES (NEW.mimetype);
  INSERT INTO data (raw_contact_id, mimetype_id, is_primary, is_super_primary, {DATA_COLS})
    VALUES (NEW.raw_contact_id, (SELECT _id FROM mimetypes WHERE mimetype = NEW.mimetype),
            coalesce(NEW.is_primary, 0), coalesce(NEW.is_super_primary, 0), {NEW_DATA});
  UPDATE raw_contacts
    SET display_name = coalesce(NEW.data1, trim(coalesce(NEW.data2, '') || ' ' || coalesce(NEW.data3, '')))
    WHERE _id = NEW.raw_contact_id AND NEW.mimetype = '{NAME}';
  UPDATE contacts SET has_phone_number = 1
    WHERE NEW.mimetype = '{PHONE}'
      AND _id = (SELECT contact_id FROM raw_contacts WHERE _id = NEW.raw_contact_id);
END;
CREATE TRIGGER IF NOT EXISTS view_data_update INSTEAD OF UPDATE ON view_data BEGIN
  UPDATE data SET {", ".join(f"data{i} = NEW.data{i}" for i in range(1, 16))},
    is_primary = NEW.is_primary, is_super_primary = NEW.is_super_primary WHERE _id = OLD._id;
  UPDATE raw_contacts
    SET display_name = coalesce(NEW.data1, trim(coalesce(NEW.data2, '') || ' ' || coalesce(NEW.data3, '')))
    WHERE _id = OLD.raw_contact_id AND OLD.mimetype = '{NAME}';
END;
CREATE TRIGGER IF NOT EXISTS view_data_delete INSTEAD OF DELETE ON view_data BEGIN
  DELETE FROM data WHERE _id = OLD._id;
END;
CREATE VIEW IF NOT EXISTS view_contacts AS
  SELECT contacts._id AS _id, raw_contacts.display_name AS display_name,
         raw_contacts.display_name AS display_name_primary, contacts.starred AS starred,
         contacts.has_phone_number AS has_phone_number, contacts.lookup AS lookup,
         contacts.pinned AS pinned, contacts.name_raw_contact_id AS name_raw_contact_id
  FROM contacts JOIN raw_contacts ON raw_contacts._id = contacts.name_raw_contact_id;
CREATE VIEW IF NOT EXISTS view_phones AS
  SELECT _id, raw_contact_id, contact_id, display_name, data1 AS number, data2 AS type, data3 AS label,
         data4 AS normalized_number, mimetype, is_primary, is_super_primary, data1, data2, data3, data4,
         starred
  FROM view_data WHERE mimetype = '{PHONE}';
CREATE VIEW IF NOT EXISTS view_emails AS
  SELECT _id, raw_contact_id, contact_id, display_name, data1 AS address, data2 AS type, data3 AS label,
         mimetype, is_primary, data1, data2, data3, starred
  FROM view_data WHERE mimetype = '{EMAIL}';
CREATE VIEW IF NOT EXISTS view_v1_phones AS
  SELECT _id, contact_id AS person, display_name AS name, display_name, number, type, label,
         normalized_number AS number_key
  FROM view_phones;
"""


@dataclass
class Contact:
    contact_id: int
    raw_id: int
    name: str
    starred: bool
    phone: str = ""
    email: str = ""
    first: str = ""
    last: str = ""
    phone_type: int = 2  # Phone.TYPE_MOBILE


# Every contact with its first phone number, by name: what the contact lists show.
LIST = (
    "SELECT c._id, c.name_raw_contact_id, coalesce(c.display_name, ''), c.starred,"
    " (SELECT data1 FROM view_data d WHERE d.contact_id = c._id"
    f" AND d.mimetype = '{PHONE}' ORDER BY d._id LIMIT 1)"
    " FROM view_contacts c ORDER BY c.display_name COLLATE NOCASE"
)


class ContactsDb:
    """Reads and writes contacts2.db the way ContactsProvider2 lays it out."""

    def __init__(self, path: Callable[[], Path]) -> None:
        self.path = path

    def create(self) -> None:
        seed = [("INSERT OR IGNORE INTO mimetypes (mimetype) VALUES (?)", (m,)) for m in MIMETYPES]
        sql_script(self.path(), SCHEMA, seed)

    def list(self, query: str = "") -> list[Contact]:
        rows = sql(self.path(), LIST)
        out = [Contact(r[0], r[1], r[2], bool(r[3]), r[4] or "") for r in rows]
        q = query.strip().lower()
        if q:
            digits = "".join(ch for ch in q if ch.isdigit())
            out = [
                c
                for c in out
                if q in c.name.lower() or (digits and digits in "".join(ch for ch in c.phone if ch.isdigit()))
            ]
        return out

    def get(self, contact_id: int) -> Contact | None:
        rows = sql(
            self.path(),
            "SELECT _id, name_raw_contact_id, coalesce(display_name, ''), starred "
            "FROM view_contacts WHERE _id = ?",
            (contact_id,),
        )
        if not rows:
            return None
        c = Contact(rows[0][0], rows[0][1], rows[0][2], bool(rows[0][3]))
        for mimetype, d1, d2, d3 in sql(
            self.path(),
            "SELECT mimetype, data1, data2, data3 FROM view_data WHERE contact_id = ? ORDER BY _id",
            (contact_id,),
        ):
            if mimetype == PHONE and not c.phone:
                c.phone = d1 or ""
                c.phone_type = int(d2) if str(d2 or "").isdigit() else 2
            elif mimetype == EMAIL and not c.email:
                c.email = d1 or ""
            elif mimetype == NAME:
                c.first, c.last = d2 or "", d3 or ""
                if not (c.first or c.last) and d1:
                    c.first, _, c.last = str(d1).partition(" ")
        return c

    def create_contact(self, first: str, last: str, phone: str, email: str, phone_type: int = 2) -> int:
        path = self.path()
        raw_id = sql_insert(path, "INSERT INTO raw_contacts (starred) VALUES (0)")
        display = f"{first} {last}".strip()
        sql(
            path,
            "INSERT INTO view_data (raw_contact_id, mimetype, data1, data2, data3) VALUES (?, ?, ?, ?, ?)",
            (raw_id, NAME, display, first or None, last or None),
        )
        if phone:
            sql(
                path,
                "INSERT INTO view_data (raw_contact_id, mimetype, data1, data2) VALUES (?, ?, ?, ?)",
                (raw_id, PHONE, phone, phone_type),
            )
        if email:
            sql(
                path,
                "INSERT INTO view_data (raw_contact_id, mimetype, data1, data2) VALUES (?, ?, ?, 1)",
                (raw_id, EMAIL, email),
            )
        return int(sql(path, "SELECT contact_id FROM raw_contacts WHERE _id = ?", (raw_id,))[0][0])

    def update_contact(
        self, c: Contact, first: str, last: str, phone: str, email: str, phone_type: int = 2
    ) -> None:
        path = self.path()
        display = f"{first} {last}".strip()
        for mimetype, value, extra in ((NAME, display, None), (PHONE, phone, phone_type), (EMAIL, email, 1)):
            rows = sql(
                path,
                "SELECT _id FROM view_data WHERE raw_contact_id = ? AND mimetype = ? ORDER BY _id LIMIT 1",
                (c.raw_id, mimetype),
            )
            if mimetype == NAME:
                if rows:
                    sql(
                        path,
                        "UPDATE view_data SET data1 = ?, data2 = ?, data3 = ? WHERE _id = ?",
                        (display, first or None, last or None, rows[0][0]),
                    )
                continue
            if rows and value and mimetype == PHONE:
                sql(
                    path,
                    "UPDATE view_data SET data1 = ?, data2 = ? WHERE _id = ?",
                    (value, extra, rows[0][0]),
                )
            elif rows and value:
                sql(path, "UPDATE view_data SET data1 = ? WHERE _id = ?", (value, rows[0][0]))
            elif rows:
                sql(path, "DELETE FROM view_data WHERE _id = ?", (rows[0][0],))
            elif value:
                sql(
                    path,
                    "INSERT INTO view_data (raw_contact_id, mimetype, data1, data2) VALUES (?, ?, ?, ?)",
                    (c.raw_id, mimetype, value, extra),
                )
        has_phone = 1 if phone else 0
        sql(path, "UPDATE contacts SET has_phone_number = ? WHERE _id = ?", (has_phone, c.contact_id))

    def delete(self, contact_id: int) -> None:
        sql(self.path(), "DELETE FROM contacts WHERE _id = ?", (contact_id,))

    def set_starred(self, contact_id: int, starred: bool) -> None:
        sql(self.path(), "UPDATE contacts SET starred = ? WHERE _id = ?", (1 if starred else 0, contact_id))


def avatar_color(name: str) -> str:
    return AVATAR_COLORS[sum(map(ord, name)) % len(AVATAR_COLORS)]


INSERT, EDIT, VIEW = (f"android.intent.action.{a}" for a in ("INSERT", "EDIT", "VIEW"))
CONTACT_DIRS = (
    "vnd.android.cursor.dir/person",
    "vnd.android.cursor.dir/contact",
    "vnd.android.cursor.dir/raw_contact",
)
CONTACT_ITEMS = (
    "vnd.android.cursor.item/person",
    "vnd.android.cursor.item/contact",
    "vnd.android.cursor.item/raw_contact",
)


def prefill(extras: dict[str, object]) -> dict[str, str]:
    """Editor fields from ContactsContract.Intents.Insert extras (`name`, `phone`, `email`)."""
    name = str(extras.get("name", "")).strip()
    first, _, last = name.partition(" ")
    return {
        "first": first,
        "last": last.strip(),
        "phone": str(extras.get("phone", "")).strip(),
        "email": str(extras.get("email", "")).strip(),
    }


class Contacts(App):
    role = "contacts"  # the provider authority stays com.android.contacts in every profile
    label = "Contacts"
    icon = "person"
    icon_color = "#1A73E8"
    intent_filters = (
        IntentFilter(EDITOR, (INSERT,), mime_types=CONTACT_DIRS),
        IntentFilter(EDITOR, (EDIT,), mime_types=CONTACT_ITEMS),
        IntentFilter(
            EDITOR, (EDIT,), mime_types=CONTACT_ITEMS, schemes=("content",), hosts=("com.android.contacts",)
        ),
        IntentFilter(PEOPLE, (VIEW,), mime_types=CONTACT_DIRS),
        # A content URI without a type: the provider would name its type; these hosts are the contacts'.
        IntentFilter(PEOPLE, (VIEW,), schemes=("content",), hosts=("contacts", "com.android.contacts")),
        IntentFilter(DETAIL, (VIEW,), mime_types=CONTACT_ITEMS),
    )
    provider_packages = (PROVIDER_PKG,)

    def __init__(self, device: SimDevice) -> None:
        super().__init__(device)
        self.db = ContactsDb(lambda: self.db_file("contacts2.db", PROVIDER_PKG))

    def screens(self) -> dict[str, ScreenFn]:
        return {PEOPLE: self.people, DETAIL: self.detail, EDITOR: self.editor}

    def create_data(self) -> None:
        self.db.create()

    def install(self) -> None:
        self.make_data()
        path = lambda: self.db_file("contacts2.db", PROVIDER_PKG)  # noqa: E731
        routes = {
            "contacts": Route("view_contacts", insert_table="contacts"),
            "raw_contacts": Route("raw_contacts"),
            "data": Route("view_data"),
            "data/phones": Route("view_phones", insert_table="view_data", defaults={"mimetype": PHONE}),
            "data/emails": Route("view_emails", insert_table="view_data", defaults={"mimetype": EMAIL}),
        }
        providers = self.device.services.providers
        space = self.device.fs.space
        providers.register(
            "com.android.contacts", SqliteProvider("com.android.contacts", path, routes, space)
        )
        legacy = {"phones": Route("view_v1_phones", insert_table="view_data", defaults={"mimetype": PHONE})}
        providers.register("contacts", SqliteProvider("contacts", path, legacy, space))

    # ---- screens
    def people(self, ctx: ScreenContext) -> View:
        searching = bool(ctx.state.get("searching"))
        query = ctx.field("search") if searching else ""
        contacts = self.db.list(query)

        def open_contact(cid: int) -> Callable[[], None]:
            return lambda: ctx.start(DETAIL, {"contact_id": cid})

        rows: list[Callable[[], View]] = []  # made as the list shows them
        favourites = [c for c in contacts if c.starred] if not query else []
        if favourites:
            rows.append(partial(header, "Favorites"))
            rows += [partial(self.row, c, open_contact(c.contact_id)) for c in favourites]
            rows.append(partial(header, "Contacts"))
        rows += [partial(self.row, c, open_contact(c.contact_id)) for c in contacts]
        empty = empty_state("person", "No contacts" if not query else "No matching contacts")

        def start_search() -> None:
            ctx.state["searching"] = True
            ctx.focus("search")

        def stop_search() -> None:
            ctx.state.pop("searching", None)
            ctx.set_fields({})

        if searching:
            ctx.on_back(stop_search)
            top: View = Row(
                height=64,
                pad=(4, 8, 16, 8),
                spacing=4,
                children=[
                    IconButton(
                        name="arrow_back", desc="Navigate up", on_click=stop_search, tint="on_surface"
                    ),
                    EditText(
                        id="search_view",
                        key="search",
                        hint="Search contacts",
                        text=ctx.field("search"),
                        style="search",
                        weight=1,
                        height=48,
                    ),
                ],
            )
        else:
            top = Column(
                pad=(16, 8, 16, 8),
                children=[
                    Row(
                        id="open_search_bar",
                        height=56,
                        radius=28,
                        bg="surface_container_high",
                        pad=(16, 0, 8, 0),
                        spacing=16,
                        on_click=start_search,
                        desc="Search contacts",
                        children=[
                            Icon(name="search", size=24, tint="on_surface_variant"),
                            Text(
                                id="open_search_bar_text_view",
                                text="Search contacts",
                                size=16,
                                color="on_surface_variant",
                                weight=1,
                            ),
                            Icon(name="more_vert", size=24, tint="on_surface_variant", width=40),
                        ],
                    )
                ],
            )
        return Stack(
            bg="surface",
            children=[
                Column(
                    children=[
                        top,
                        Scroll(
                            id="contact_list",
                            key="list",
                            weight=1,
                            pad=(0, 0, 0, 88),
                            rows=Rows.of(rows),
                            empty=empty,
                        ),
                    ]
                ),
                fab("add", "Create contact", lambda: ctx.start(EDITOR), id="floating_action_button"),
            ],
        )

    @staticmethod
    def row(c: Contact, on_click: Callable[[], None]) -> View:
        return list_item(
            c.name or "(No name)",
            icon="",
            avatar=c.name or "?",
            avatar_color=avatar_color(c.name),
            on_click=on_click,
            id="cliv_name_textview_container",
            title_id="cliv_name_textview",
        )

    def detail(self, ctx: ScreenContext) -> View:
        cid = int(ctx.extras.get("contact_id", 0))
        c = self.db.get(cid)
        if c is None:
            return Column(
                bg="surface",
                children=[app_bar("", back=ctx.finish), empty_state("person", "Contact not found")],
            )
        confirming = bool(ctx.state.get("confirm_delete"))

        def toggle_star() -> None:
            self.db.set_starred(cid, not c.starred)

        def delete() -> None:
            self.db.delete(cid)
            ctx.state.pop("confirm_delete", None)
            ctx.toast("Contact deleted")
            ctx.finish()

        def ask_delete() -> None:
            ctx.state["confirm_delete"] = True

        def cancel() -> None:
            ctx.state.pop("confirm_delete", None)

        actions: list[View] = [
            action(
                "star" if c.starred else "star_outline",
                "Remove from favorites" if c.starred else "Add to favorites",
                toggle_star,
                id="menu_star",
            ),
            action("edit", "Edit", lambda: ctx.start(EDITOR, {"contact_id": cid}), id="menu_edit"),
            action("delete", "Delete", ask_delete, id="menu_delete"),
        ]
        info: list[View] = []
        if c.phone:
            info.append(
                list_item(
                    c.phone,
                    PHONE_LABELS.get(c.phone_type, "Other"),
                    icon="phone",
                    title_id="header",
                    subtitle_id="sub_header",
                )
            )
        if c.email:
            info.append(
                list_item(c.email, "Home", icon="message", title_id="header", subtitle_id="sub_header")
            )
        body = Column(
            bg="surface",
            children=[
                app_bar("", back=ctx.finish, actions=actions),
                Column(
                    center=True,
                    pad=(0, 16, 0, 24),
                    spacing=16,
                    children=[
                        _big_avatar(c.name),
                        Text(id="large_title", text=c.name, size=28, gravity="center"),
                    ],
                ),
                Scroll(key="detail", weight=1, children=info),
            ],
        )
        layers: list[View] = [body]
        if confirming:
            ctx.on_back(cancel)
            layers.append(
                dialog("Delete this contact?", [], [("Cancel", cancel), ("Delete", delete)], cancel)
            )
        return Stack(children=layers)

    def editor(self, ctx: ScreenContext) -> View:
        cid = ctx.extras.get("contact_id")
        existing = self.db.get(int(cid)) if cid is not None else None
        if existing is None and not ctx.state.get("loaded") and {"name", "phone", "email"} & set(ctx.extras):
            ctx.state["loaded"] = True  # an INSERT intent's extras fill the new contact's fields once
            ctx.set_fields(prefill(ctx.extras))
        if existing is not None and not ctx.state.get("loaded"):
            ctx.state["loaded"] = True
            ctx.set_fields(
                {
                    "first": existing.first,
                    "last": existing.last,
                    "phone": existing.phone,
                    "email": existing.email,
                    "phone_type": PHONE_LABELS.get(existing.phone_type, "Other"),
                }
            )
        phone_label = ctx.field("phone_type", "Mobile")
        if phone_label not in PHONE_TYPES:
            phone_label = "Mobile"

        def save() -> None:
            first, last = ctx.field("first").strip(), ctx.field("last").strip()
            phone, email = ctx.field("phone").strip(), ctx.field("email").strip()
            if not (first or last or phone or email):
                ctx.toast("Contact not saved: it is empty")
                ctx.finish()
                return
            if existing is not None:
                self.db.update_contact(existing, first, last, phone, email, PHONE_TYPES[phone_label])
                ctx.finish()
            else:
                new_id = self.db.create_contact(first, last, phone, email, PHONE_TYPES[phone_label])
                ctx.finish()
                ctx.start(DETAIL, {"contact_id": new_id})
            ctx.toast("Contact saved")

        fields = [
            ("first", "First name", "person"),
            ("last", "Last name", ""),
            ("phone", "Phone", "phone"),
            ("email", "Email", "message"),
        ]
        rows: list[View] = []
        for key, hint, icon in fields:
            rows.append(
                Row(
                    pad=(8, 8, 24, 8),
                    spacing=8,
                    children=[
                        Icon(name=icon, size=24, tint="on_surface_variant", width=48),
                        EditText(
                            id=f"{key}_name" if key in ("first", "last") else key,
                            key=key,
                            hint=hint,
                            text=ctx.field(key),
                            weight=1,
                        ),
                    ],
                )
            )
            if key == "phone":
                rows.append(self.phone_type_spinner(ctx, phone_label))
        from mgfarm.sim.ui.views import Button

        form = editor(
            "Edit contact" if existing is not None else "Create contact",
            IconButton(id="close", name="close", desc="Cancel", on_click=ctx.finish, tint="on_surface"),
            Button(id="editor_menu_save_button", text="Save", on_click=save),
            Scroll(key="form", weight=1, children=rows),
            title_id="title",
        )
        if not ctx.state.get("phone_types"):
            return form
        return Stack(children=[form, self.phone_type_menu(ctx)])

    @staticmethod
    def phone_type_spinner(ctx: ScreenContext, label: str) -> View:
        """The phone number's label below its field ("Mobile" until changed); a tap lists the types.
        Its description says the label and the field, as Google Contacts' spinner does ("Home Phone")."""
        return Row(
            pad=(64, 0, 24, 8),
            children=[
                Row(
                    id="spinner",
                    height=48,
                    pad=(16, 0, 8, 0),
                    spacing=8,
                    border="outline",
                    radius=4,
                    on_click=lambda: ctx.state.update(phone_types=True),
                    children=[
                        Text(id="android:id/text1", text=label, desc=f"{label} Phone", size=16),
                    ],
                )
            ],
        )

    @staticmethod
    def phone_type_menu(ctx: ScreenContext) -> View:
        """The spinner's dropdown: one row per phone type; a tap picks it, a tap outside closes."""

        def close() -> None:
            ctx.state.pop("phone_types", None)

        def choose(label: str) -> Callable[[], None]:
            def run() -> None:
                ctx.set_field("phone_type", label)
                close()

            return run

        ctx.on_back(close)
        items: list[View] = [
            Text(id="android:id/text1", text=label, size=16, pad=(16, 14, 32, 14), on_click=choose(label))
            for label in PHONE_TYPES
        ]
        card = Column(
            bg="surface_container", radius=4, width=240, align="center", blocks=True, children=items
        )
        return Stack(on_click=close, children=[card])


def _big_avatar(name: str) -> View:
    from mgfarm.sim.ui.views import Avatar

    return Avatar(id="photo", letter=name or "?", color=avatar_color(name), width=112, height=112)


def contacts_db(device: SimDevice) -> ContactsDb | None:
    """The contacts of the device's Contacts app (its package depends on the profile), if installed."""
    app = app_for(device, "contacts")
    return app.db if isinstance(app, Contacts) else None
