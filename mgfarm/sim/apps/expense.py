"""Pro Expense (com.arduia.expense, 1.0.0-beta05): an expense tracker on its own Room database.

The database is the real app's: `databases/accounting.db`, Room version 6, table `expense` with
`amount` in cents (the app stores the typed amount times 100) and `category` one of the app's ids
1..11 (Others 1, Income 2, Food 3, ... Donation 11), `created_date`/`modified_date` in ms. Whether
the first-run setup (language, then currency) is done is the default SharedPreferences' `isFirstTime`,
so `pm clear` brings that setup back, as AndroidWorld's ExpenseApp.setup expects (it taps Next, then
Continue). Expenses show on Home (the five newest) and on Expense Logs (all, by day); tapping one
opens its details (Edit, Delete), a long press selects rows for one Delete.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.system.clock import local_ms
from mgfarm.sim.ui.views import (
    Button,
    Column,
    EditText,
    Icon,
    IconButton,
    Row,
    Rows,
    Scrim,
    Scroll,
    Spacer,
    Stack,
    Text,
    View,
)
from mgfarm.sim.ui.widgets import empty_state, fab

PKG = "com.arduia.expense"
MAIN = "com.arduia.expense.ui.MainActivity"
EDIT = "com.arduia.expense.ui.entry.ExpenseEntryActivity"
DB = "accounting.db"
# ExpenseCategory ids, in the order the entry screen lists them (Others last, though its id is 1).
CATEGORIES = {
    2: "Income",
    3: "Food",
    4: "Housing",
    5: "Social",
    6: "Entertainment",
    7: "Transportation",
    8: "Clothes",
    9: "Health Care",
    10: "Education",
    11: "Donation",
    1: "Others",
}
DEFAULT_CATEGORY = 3  # a new entry starts on Food, as the app's entry screen does
CATEGORY_ROWS = ((2, 3, 4), (5, 6), (7, 8), (9, 10), (11, 1))  # chips per row that fit 360dp
LANGUAGES = ("English", "မြန်မာ (Burmese)")
# Currency number (ISO 4217) -> code, name, symbol; 840 (USD) is the app's default.
CURRENCIES = {
    "840": ("USD", "US Dollar", "$"),
    "978": ("EUR", "Euro", "€"),
    "826": ("GBP", "Pound Sterling", "£"),
    "392": ("JPY", "Yen", "¥"),
    "104": ("MMK", "Kyat", "K"),
}
# Room's schema (ProExpenseDatabase version 6, identity hash from its exported 6.json): Room checks
# the hash and user_version on open, so a copy pulled by a tool looks like the real app's.
IDENTITY_HASH = "27085a6798a70569f4984067458b86b2"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS `expense` (`expense_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  `name` TEXT, `amount` INTEGER NOT NULL, `category` INTEGER NOT NULL, `note` TEXT,
  `created_date` INTEGER NOT NULL, `modified_date` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `backup` (`backup_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  `name` TEXT NOT NULL, `path` TEXT NOT NULL, `created_date` INTEGER NOT NULL,
  `item_total` INTEGER NOT NULL, `worker_id` TEXT NOT NULL, `is_completed` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY, identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id, identity_hash) VALUES (42, '{IDENTITY_HASH}');
PRAGMA user_version = 6;
"""
META = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
ADD = (
    "INSERT INTO expense (name, amount, category, note, created_date, modified_date) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
SEED_TIME = 1772442000000  # 2026-03-02 09:00 UTC
SEED = (
    *META,
    (ADD, ("Groceries", 5420, 3, "Weekly shop", SEED_TIME, SEED_TIME)),
    (ADD, ("Bus pass", 3000, 7, "", SEED_TIME + 3_600_000, SEED_TIME + 3_600_000)),
    (ADD, ("Cinema", 1250, 6, "Dune", SEED_TIME + 86_400_000, SEED_TIME + 86_400_000)),
)
COLUMNS = "expense_id, name, amount, category, note, created_date"


def money(cents: int) -> str:
    """An amount as the app shows it, without the currency symbol: 54.20, 1,250.00."""
    return f"{cents / 100:,.2f}"


def parse_money(text: str) -> int | None:
    """Cents of a typed amount (the app multiplies by 100), or None when it is not a positive number."""
    try:
        value = Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        return None
    if not value.is_finite() or value <= 0 or value >= Decimal(10) ** 15:
        return None
    return int((value * 100).to_integral_value())


def category_name(category: Any) -> str:
    try:
        return CATEGORIES.get(int(category), "Others")
    except (TypeError, ValueError):
        return "Others"


class Expense(App):
    package = PKG
    label = "Pro Expense"
    main_activity = MAIN
    icon = "money"
    icon_color = "#00897B"
    version_name = "1.0.0-beta05"

    # ---- data
    def install(self) -> None:
        """A new device has used the app: setup done and three expenses (only when the db is absent)."""
        fresh = not self.db_file(DB).exists()
        sql_script(self.db_file(DB), SCHEMA, SEED if fresh else META)
        if fresh:
            self.save_preferences(
                {"isFirstTime": False, "selected_language": "en", "selected_currency_number": "840"}
            )

    def create_data(self) -> None:
        """After `pm clear`: nothing. Room creates the database when Home first reads it, after the
        first-run setup, which shows again since the preferences are gone (AndroidWorld sees no table
        and runs its ExpenseApp.setup: Next, Continue)."""

    def open_db(self) -> None:
        """Room's open: create the schema if the database is new (no-op statements otherwise)."""
        sql_script(self.db_file(DB), SCHEMA, META)

    def symbol(self) -> str:
        return CURRENCIES.get(
            str(self.preferences().get("selected_currency_number", "840")), CURRENCIES["840"]
        )[2]

    def expenses(self) -> list[tuple[Any, ...]]:
        """Every expense, newest first (as Home and Expense Logs list them)."""
        return sql(
            self.db_file(DB),
            f"SELECT {COLUMNS} FROM expense ORDER BY created_date DESC, expense_id DESC",
        )

    def day(self, ms: Any) -> str:
        return "" if ms is None else local_ms(self.device.props, ms).strftime("%b %-d, %Y")

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, EDIT: self.edit}

    # ---- MainActivity: first-run setup, Home, Expense Logs, the drawer and the sheets
    def main(self, ctx: ScreenContext) -> View:
        if self.preferences().get("isFirstTime", True):
            return self.onboarding(ctx)
        st = ctx.state
        page = str(st.get("page", "home"))
        if not self.db_file(DB).exists():
            self.open_db()
        rows = self.expenses()
        symbol = self.symbol()
        body = self.logs(ctx, rows, symbol) if page == "logs" else self.home(ctx, rows, symbol)
        layers: list[View] = [body, fab("add", "Add expense", lambda: ctx.start(EDIT), id="fb_main_add")]
        if page == "logs" and st.get("selected"):
            layers.pop()  # the add button hides while rows are selected
        if st.get("drawer"):
            layers.append(self.drawer(ctx))
        elif st.get("confirm"):
            layers.append(self.confirm_sheet(ctx))
        elif st.get("detail") is not None:
            found = [r for r in rows if int(r[0]) == int(st["detail"])]
            if found:
                layers.append(self.detail_sheet(ctx, found[0], symbol))
            else:
                st.pop("detail", None)
        return Stack(bg="surface", children=layers)

    def onboarding(self, ctx: ScreenContext) -> View:
        st = ctx.state
        step = int(st.get("setup_step", 0))
        language = int(st.get("language", 0))
        currency = str(st.get("currency", "840"))

        def pick_language(i: int) -> Callable[[], None]:
            return lambda: st.update(language=i)

        def pick_currency(num: str) -> Callable[[], None]:
            return lambda: st.update(currency=num)

        def tick(on: bool) -> View:
            if not on:
                return Spacer(width=24)
            return Icon(id="imv_selected", name="check", size=24, tint="primary")

        if step == 0:
            title = "Choose Language"
            items: list[View] = [
                Row(
                    id="cl_language",
                    height=56,
                    pad=(24, 0, 24, 0),
                    on_click=pick_language(i),
                    selected=i == language,
                    children=[Text(id="tv_language", text=name, size=16, weight=1), tick(i == language)],
                )
                for i, name in enumerate(LANGUAGES)
            ]
            lst = Scroll(id="rv_languages", key="languages", weight=1, children=items)
        else:
            title = "Choose Currency"
            items = [
                Row(
                    id="cl_currency",
                    height=64,
                    pad=(24, 0, 24, 0),
                    spacing=16,
                    on_click=pick_currency(num),
                    selected=num == currency,
                    children=[
                        Text(id="tv_symbol", text=sym, size=20, width=32),
                        Column(
                            weight=1,
                            children=[
                                Text(id="tv_currency", text=name, size=16),
                                Text(id="tv_code", text=code, size=14, color="on_surface_variant"),
                            ],
                        ),
                        tick(num == currency),
                    ],
                )
                for num, (code, name, sym) in CURRENCIES.items()
            ]
            lst = Scroll(id="rv_currencies", key="currencies", weight=1, children=items)

        def go_on() -> None:
            if step == 0:
                st["setup_step"] = 1
                return
            self.save_preferences(
                {
                    "isFirstTime": False,
                    "selected_language": "en" if language == 0 else "my",
                    "selected_currency_number": currency,
                }
            )
            for key in ("setup_step", "language", "currency"):
                st.pop(key, None)
            self.open_db()  # Home reads the expenses at once, whether or not a frame is drawn

        if step == 1:
            ctx.on_back(lambda: st.update(setup_step=0))
        return Column(
            bg="surface",
            pad=(0, 24, 0, 16),
            spacing=12,
            center=True,
            children=[
                Icon(id="imv_app", name="money", size=64, width=64, tint="primary"),
                Text(
                    id="tv_welcome",
                    text="Hello! Welcome to Pro Expense",
                    size=22,
                    gravity="center",
                    lines=2,
                    pad=(24, 0, 24, 0),
                ),
                Text(id="tv_lang", text=title, size=16, medium=True, color="primary", pad=(24, 8, 24, 0)),
                lst,
                Row(
                    pad=(24, 0, 24, 0),
                    children=[
                        Button(
                            id="btn_continue",
                            text="Next" if step == 0 else "Continue",
                            on_click=go_on,
                            weight=1,
                            height=48,
                        )
                    ],
                ),
            ],
        )

    def toolbar(self, ctx: ScreenContext, title: str, actions: list[View]) -> View:
        return Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                IconButton(
                    name="menu",
                    desc="Open navigation drawer",
                    on_click=lambda: ctx.state.update(drawer=True),
                    tint="on_surface",
                ),
                Text(id="tv_title", text=title, size=22, weight=1, pad=(4, 0, 0, 0)),
                *actions,
            ],
        )

    def item(
        self,
        ctx: ScreenContext,
        row: tuple[Any, ...],
        symbol: str,
        on_long_click: Callable[[], None] | None = None,
        selected: bool = False,
    ) -> View:
        """One expense row (item_expense_log): category, name, day, amount and currency symbol."""
        eid, name, amount, category, _note, created = row
        st = ctx.state

        def tap() -> None:
            if st.get("selected"):
                toggle(int(eid))(st)
            else:
                st["detail"] = int(eid)

        lead = Icon(
            id="imv_check" if selected else "imv_category",
            name="check" if selected else "money",
            size=24,
            width=40,
            tint="on_primary_container" if selected else "on_surface_variant",
            desc=category_name(category),
        )
        return Row(
            id="cd_expense",
            height=72,
            pad=(16, 0, 20, 0),
            spacing=16,
            on_click=tap,
            on_long_click=on_long_click,
            selected=selected,
            bg="secondary_container" if selected else None,
            children=[
                lead,
                Column(
                    weight=1,
                    children=[
                        Text(id="tv_name", text=str(name or ""), size=16),
                        Text(id="tv_date", text=self.day(created), size=14, color="on_surface_variant"),
                    ],
                ),
                Text(id="tv_amount", text=money(int(amount)), size=16, medium=True),
                Text(id="tv_currency_symbol", text=symbol, size=14, color="on_surface_variant"),
            ],
        )

    def home(self, ctx: ScreenContext, rows: list[tuple[Any, ...]], symbol: str) -> View:
        total = sum(int(r[2]) for r in rows)
        recent: list[View] = [self.item(ctx, r, symbol) for r in rows[:5]]
        if not recent:
            recent = [Text(text="No Items", size=14, color="on_surface_variant", pad=(16, 16, 16, 16))]
        return Column(
            children=[
                self.toolbar(ctx, "Home", []),
                Scroll(
                    id="rv_home",
                    key="home",
                    weight=1,
                    pad=(16, 8, 16, 96),
                    spacing=16,
                    children=[
                        Column(
                            bg="primary_container",
                            radius=24,
                            pad=(24, 16, 24, 16),
                            children=[
                                Text(text="Total expenses", size=14, color="on_primary_container"),
                                Text(
                                    id="tv_total",
                                    text=f"{symbol}{money(total)}",
                                    size=32,
                                    color="on_primary_container",
                                ),
                            ],
                        ),
                        Column(
                            bg="surface_container",
                            radius=16,
                            pad=(0, 12, 0, 8),
                            children=[
                                Text(
                                    id="tv_recent_lists",
                                    text="Recent",
                                    size=16,
                                    medium=True,
                                    pad=(16, 0, 16, 4),
                                ),
                                Column(id="rv_recent_lists", children=recent),
                                Row(
                                    justify="end",
                                    pad=(0, 0, 8, 0),
                                    children=[
                                        Button(
                                            id="btn_more_logs",
                                            text="More",
                                            style="text",
                                            on_click=lambda: self.go(ctx, "logs"),
                                        )
                                    ],
                                ),
                            ],
                        ),
                    ],
                ),
            ]
        )

    def go(self, ctx: ScreenContext, page: str) -> None:
        for key in ("drawer", "detail", "confirm", "selected"):
            ctx.state.pop(key, None)
        ctx.state["page"] = page

    def logs(self, ctx: ScreenContext, rows: list[tuple[Any, ...]], symbol: str) -> View:
        st = ctx.state
        chosen = {int(e) for e in st.get("selected", [])} & {int(r[0]) for r in rows}
        st["selected"] = sorted(chosen)
        items: list[Callable[[], View]] = []  # made as the list shows them
        last = None
        for r in rows:
            day = self.day(r[5])
            if day != last:
                items.append(
                    partial(
                        Text,
                        id="tv_date",
                        text=day,
                        size=14,
                        medium=True,
                        color="primary",
                        pad=(16, 12, 16, 4),
                    )
                )
                last = day
            eid = int(r[0])
            items.append(
                partial(self.item, ctx, r, symbol, on_long_click=select(st, eid), selected=eid in chosen)
            )
        actions: list[View] = []
        if chosen:
            actions.append(
                IconButton(
                    id="delete",
                    name="delete",
                    desc="Delete",
                    on_click=lambda: st.update(confirm=sorted(chosen)),
                    tint="on_surface",
                )
            )
            ctx.on_back(lambda: st.update(selected=[]))
        else:
            ctx.on_back(lambda: self.go(ctx, "home"))
        title = f"{len(chosen)} selected" if chosen else "Expense Logs"
        return Column(
            children=[
                self.toolbar(ctx, title, actions),
                Scroll(
                    id="rv_expense",
                    key="logs",
                    weight=1,
                    pad=(0, 0, 0, 96),
                    rows=Rows.of(items),
                    empty=empty_state("money", "No Data"),
                ),
            ]
        )

    def drawer(self, ctx: ScreenContext) -> View:
        page = str(ctx.state.get("page", "home"))

        def close() -> None:
            ctx.state.pop("drawer", None)

        def entry(label: str, icon: str, target: str) -> View:
            return Row(
                id="design_menu_item_text",
                height=56,
                pad=(16, 0, 16, 0),
                spacing=16,
                radius=28,
                selected=page == target,
                bg="secondary_container" if page == target else None,
                on_click=lambda: self.go(ctx, target),
                children=[Icon(name=icon, size=24), Text(text=label, size=14, medium=True, weight=1)],
            )

        ctx.on_back(close)
        panel = Column(
            id="nv_main",
            bg="surface_container_high",
            width=300,
            height=4000,
            align="top_start",
            blocks=True,
            pad=(12, 28, 12, 12),
            children=[
                Text(text="Pro Expense", size=22, pad=(16, 0, 16, 24)),
                entry("Home", "nav_home", "home"),
                entry("Expense Logs", "history", "logs"),
            ],
        )
        return Scrim(on_click=close, children=[panel])

    def sheet(self, title: str, title_id: str, close: Callable[[], None], body: list[View]) -> View:
        """A bottom sheet over a scrim (the app's dialogs are BottomSheetDialogFragments)."""
        card = Column(
            bg="surface_container_high",
            radius=28,
            pad=(24, 16, 24, 24),
            spacing=12,
            width=4000,  # an aligned child wraps its content: this makes the sheet full width
            align="bottom",
            blocks=True,
            children=[
                Row(
                    children=[
                        Text(id=title_id, text=title, size=20, medium=True, weight=1),
                        IconButton(id="btn_close", name="close", desc="Close", on_click=close),
                    ]
                ),
                *body,
            ],
        )
        return Scrim(on_click=close, children=[card])

    def detail_sheet(self, ctx: ScreenContext, row: tuple[Any, ...], symbol: str) -> View:
        eid, name, amount, category, note, created = row
        st = ctx.state

        def close() -> None:
            st.pop("detail", None)

        def edit() -> None:
            close()
            ctx.start(EDIT, {"expense_id": int(eid)})

        def field(label: str, label_id: str, value: str, value_id: str) -> View:
            return Row(
                spacing=16,
                children=[
                    Text(id=label_id, text=label, size=14, color="on_surface_variant", width=80),
                    Text(id=value_id, text=value, size=16, weight=1, lines=4),
                ],
            )

        ctx.on_back(close)
        return self.sheet(
            "Expense Detail",
            "tv_expense_detail",
            close,
            [
                Row(
                    spacing=16,
                    children=[
                        Icon(
                            id="imv_category", name="money", size=24, width=40, desc=category_name(category)
                        ),
                        Column(
                            weight=1,
                            children=[
                                Text(id="tv_name_value", text=str(name or ""), size=18, medium=True, lines=2),
                                Text(id="tv_category_value", text=category_name(category), size=14),
                            ],
                        ),
                        IconButton(
                            id="btn_delete",
                            name="delete",
                            desc="Delete",
                            on_click=lambda: st.update(confirm=[int(eid)], detail=None),
                        ),
                    ],
                ),
                field("Amount", "tv_amount", f"{money(int(amount))} {symbol}", "tv_amount_value"),
                field("Date", "tv_date", self.day(created), "tv_date_value"),
                field("Note", "tv_note", str(note or ""), "tv_note_value"),
                Button(id="btn_edit", text="Edit", on_click=edit, height=48),
            ],
        )

    def confirm_sheet(self, ctx: ScreenContext) -> View:
        st = ctx.state
        ids = [int(e) for e in st.get("confirm", [])]

        def close() -> None:
            st.pop("confirm", None)

        def confirm() -> None:
            db = self.db_file(DB)
            for eid in ids:
                sql(db, "DELETE FROM expense WHERE expense_id = ?", (eid,))
            for key in ("confirm", "detail", "selected"):
                st.pop(key, None)
            ctx.toast("Item Deleted" if len(ids) == 1 else "Items Deleted")

        ctx.on_back(close)
        count = f"{len(ids)} item" if len(ids) == 1 else f"{len(ids)} items"
        return self.sheet(
            "Delete Items",
            "tv_delete_item",
            close,
            [
                Column(
                    id="cv_description_bg",
                    bg="tertiary_container",
                    radius=12,
                    pad=(16, 12, 16, 12),
                    children=[
                        Text(id="tv_items", text=count, size=18, medium=True, color="error"),
                        Text(
                            id="tv_delete_description",
                            text="will be deleted!",
                            size=14,
                            color="error",
                        ),
                    ],
                ),
                Button(id="btn_confirm", text="Confirm", on_click=confirm, height=48),
            ],
        )

    # ---- the entry screen (new, or editing one expense)
    def edit(self, ctx: ScreenContext) -> View:
        db = self.db_file(DB)
        eid = ctx.extras.get("expense_id")
        st = ctx.state
        if not st.get("loaded"):
            st["loaded"] = True
            st["category"] = DEFAULT_CATEGORY
            if eid is not None:
                rows = sql(
                    db, "SELECT name, amount, category, note FROM expense WHERE expense_id = ?", (int(eid),)
                )
                if rows:
                    name, amount, category, note = rows[0]
                    ctx.set_fields(
                        {"name": str(name or ""), "amount": f"{int(amount) / 100:.2f}", "note": note or ""}
                    )
                    st["category"] = int(category)

        def save() -> None:
            name, cents = ctx.field("name").strip(), parse_money(ctx.field("amount"))
            if not name or cents is None:
                ctx.toast("Enter a name and an amount")
                return
            now = ctx.now_ms()
            category = int(st.get("category", DEFAULT_CATEGORY))
            note = ctx.field("note").strip()
            if eid is not None:
                sql(
                    db,
                    "UPDATE expense SET name = ?, amount = ?, category = ?, note = ?, modified_date = ? "
                    "WHERE expense_id = ?",
                    (name, cents, category, note, now, int(eid)),
                )
            else:
                sql(db, ADD, (name, cents, category, note, now, now))
            ctx.toast("Saved")
            ctx.finish()

        def pick(cid: int) -> Callable[[], None]:
            return lambda: st.update(category=cid)

        selected = int(st.get("category", DEFAULT_CATEGORY))
        chips: list[View] = [
            Row(
                spacing=8,
                children=[
                    Button(
                        id="cd_category",
                        text=CATEGORIES[cid],
                        style="tonal" if cid == selected else "outlined",
                        height=36,
                        size=14,
                        on_click=pick(cid),
                        selected=cid == selected,
                    )
                    for cid in ids
                ],
            )
            for ids in CATEGORY_ROWS
        ]
        form: list[View] = [
            EditText(id="edt_name", key="name", hint="Name", text=ctx.field("name")),
            EditText(id="edt_amount", key="amount", hint="Amount", text=ctx.field("amount")),
            Text(text="Category", size=14, medium=True, color="on_surface_variant"),
            Column(id="rv_category", spacing=8, children=chips),
            EditText(
                id="edt_note", key="note", hint="Note", text=ctx.field("note"), multiline=True, height=96
            ),
            Button(id="btn_save", text="Save", on_click=save, height=48),
        ]
        bar = Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 16, 0),
            children=[
                IconButton(name="arrow_back", desc="Navigate up", on_click=ctx.finish, tint="on_surface"),
                Text(id="tv_title", text="Expense Entry", size=22, weight=1, pad=(4, 0, 0, 0)),
            ],
        )
        return Column(
            bg="surface",
            children=[
                bar,
                Scroll(id="sv_entry", key="form", weight=1, pad=(16, 8, 16, 16), spacing=16, children=form),
            ],
        )


def select(st: dict[str, Any], eid: int) -> Callable[[], None]:
    return lambda: toggle(eid)(st)


def toggle(eid: int) -> Callable[[dict[str, Any]], None]:
    """Add a row to the selection of Expense Logs, or take it out."""

    def run(st: dict[str, Any]) -> None:
        chosen = {int(e) for e in st.get("selected", [])}
        chosen ^= {eid}
        st["selected"] = sorted(chosen)

    return run
