"""Pro Expense (com.arduia.expense): an expense tracker with its own SQLite db, like AndroidWorld's.

Amounts are stored in cents in `accounting.db` table `expense`; categories are small integers.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_script
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, Row, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import chip, editor, empty_state, fab, list_item

PKG = "com.arduia.expense"
MAIN = "com.arduia.expense.ui.MainActivity"
EDIT = "com.arduia.expense.ui.entry.ExpenseEntryActivity"
CATEGORIES = ("Food", "Transportation", "Housing", "Utilities", "Entertainment", "Health", "Other")
SCHEMA = """
CREATE TABLE IF NOT EXISTS expense (
  expense_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, amount INTEGER NOT NULL,
  category INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL,
  modified_date INTEGER NOT NULL);
"""
ADD = (
    "INSERT INTO expense (name, amount, category, note, created_at, modified_date) VALUES (?, ?, ?, ?, ?, ?)"
)
SEED_TIME = 1772442000000  # 2026-03-02 09:00 UTC
SEED = (
    (ADD, ("Groceries", 5420, 0, "Weekly shop", SEED_TIME, SEED_TIME)),
    (ADD, ("Bus pass", 3000, 1, "", SEED_TIME + 3_600_000, SEED_TIME + 3_600_000)),
    (ADD, ("Cinema", 1250, 4, "Dune", SEED_TIME + 86_400_000, SEED_TIME + 86_400_000)),
)


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def parse_money(text: str) -> int | None:
    try:
        value = round(float(text.replace("$", "").replace(",", "").strip()) * 100)
    except ValueError:
        return None
    return value if value > 0 else None


class Expense(App):
    package = PKG
    label = "Pro Expense"
    main_activity = MAIN
    icon = "money"
    icon_color = "#00897B"
    version_name = "3.0.0"

    def create_data(self) -> None:
        fresh = not self.db_file("accounting.db").exists()
        sql_script(self.db_file("accounting.db"), SCHEMA, SEED if fresh else ())

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, EDIT: self.edit}

    def main(self, ctx: ScreenContext) -> View:
        rows = sql(
            self.db_file("accounting.db"),
            "SELECT expense_id, name, amount, category, created_at FROM expense ORDER BY created_at DESC, "
            "expense_id DESC",
        )
        total = sum(int(r[2]) for r in rows)

        def open_row(eid: int) -> Callable[[], None]:
            return lambda: ctx.start(EDIT, {"expense_id": eid})

        items: list[View] = []
        for eid, name, amount, category, created in rows:
            when = datetime.fromtimestamp(created / 1000, timezone.utc).strftime("%b %-d")
            items.append(
                list_item(
                    name,
                    f"{CATEGORIES[int(category) % len(CATEGORIES)]} · {when}",
                    icon="money",
                    on_click=open_row(int(eid)),
                    id="expense_item",
                    title_id="tv_name",
                    subtitle_id="tv_category",
                    trailing=Text(id="tv_amount", text=money(int(amount)), size=16, medium=True),
                )
            )
        return Stack(
            bg="surface",
            children=[
                Column(
                    children=[
                        Row(
                            id="toolbar",
                            height=64,
                            pad=(16, 0, 4, 0),
                            children=[Text(text="Pro Expense", size=22, weight=1)],
                        ),
                        Column(
                            bg="primary_container",
                            radius=24,
                            pad=(24, 16, 24, 16),
                            children=[
                                Text(text="Total expenses", size=14, color="on_primary_container"),
                                Text(id="tv_total", text=money(total), size=32, color="on_primary_container"),
                            ],
                        ),
                        Scroll(
                            id="rv_expense",
                            key="list",
                            weight=1,
                            pad=(0, 8, 0, 88),
                            children=items or [empty_state("money", "No expenses yet")],
                        ),
                    ],
                    pad=(0, 0, 0, 0),
                ),
                fab("add", "Add expense", lambda: ctx.start(EDIT), id="fb_main_add"),
            ],
        )

    def edit(self, ctx: ScreenContext) -> View:
        db = self.db_file("accounting.db")
        eid = ctx.extras.get("expense_id")
        if not ctx.state.get("loaded"):
            ctx.state["loaded"] = True
            ctx.state["category"] = 0
            if eid is not None:
                rows = sql(
                    db, "SELECT name, amount, category, note FROM expense WHERE expense_id = ?", (int(eid),)
                )
                if rows:
                    name, amount, category, note = rows[0]
                    ctx.set_fields({"name": name, "amount": f"{int(amount) / 100:.2f}", "note": note or ""})
                    ctx.state["category"] = int(category)

        def save() -> None:
            name, cents = ctx.field("name").strip(), parse_money(ctx.field("amount"))
            if not name or cents is None:
                ctx.toast("Enter a name and an amount")
                return
            now = ctx.now_ms()
            category = int(ctx.state.get("category", 0))
            if eid is not None:
                sql(
                    db,
                    "UPDATE expense SET name = ?, amount = ?, category = ?, note = ?, modified_date = ? "
                    "WHERE expense_id = ?",
                    (name, cents, category, ctx.field("note").strip(), now, int(eid)),
                )
            else:
                sql(db, ADD, (name, cents, category, ctx.field("note").strip(), now, now))
            ctx.toast("Saved")
            ctx.finish()

        def delete() -> None:
            sql(db, "DELETE FROM expense WHERE expense_id = ?", (int(eid or 0),))
            ctx.toast("Deleted")
            ctx.finish()

        def pick(i: int) -> Callable[[], None]:
            return lambda: ctx.state.update(category=i)

        selected = int(ctx.state.get("category", 0))
        chips = [chip(c, pick(i), i == selected) for i, c in enumerate(CATEGORIES)]
        form: list[View] = [
            EditText(id="edt_name", key="name", hint="Name", text=ctx.field("name")),
            EditText(id="edt_amount", key="amount", hint="Amount", text=ctx.field("amount")),
            Text(text="Category", size=14, medium=True, color="on_surface_variant"),
            Row(spacing=8, children=chips[:3]),
            Row(spacing=8, children=chips[3:6]),
            Row(spacing=8, children=chips[6:]),
            EditText(id="edt_note", key="note", hint="Note", text=ctx.field("note")),
        ]
        if eid is not None:
            form.append(
                Row(children=[Button(id="btn_delete", text="Delete", style="outlined", on_click=delete)])
            )
        return editor(
            "Edit expense" if eid is not None else "New expense",
            IconButton(name="arrow_back", desc="Navigate up", on_click=ctx.finish, tint="on_surface"),
            Button(id="btn_save", text="Save", on_click=save),
            Scroll(key="form", weight=1, pad=(16, 8, 16, 16), spacing=16, children=form),
        )
