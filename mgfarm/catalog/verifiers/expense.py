"""Pro Expense: expenses in accounting.db (table expense; amounts in cents, categories by the app's ids)."""

from __future__ import annotations

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl, PrefsDecl

# The app's ExpenseCategory ids (an id it does not know shows as Others).
CATEGORIES = {
    1: "Others",
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
}
DATABASES = (
    DatabaseDecl(
        "expense",
        "/data/data/com.arduia.expense/databases/accounting.db",
        app="expense",
        main="expense",
        key="expense_id",
        edit="amount = amount + 100",
        extra="INSERT INTO expense (name, amount, category, note, created_date, modified_date) "
        "VALUES ('Casino', 50000, 1, '', 1772600000000, 1772600000000)",
    ),
)
# Its own settings: the currency amounts show in, the language.
PREFERENCES = (
    PrefsDecl(
        "expense",
        "/data/data/com.arduia.expense/shared_prefs/com.arduia.expense_preferences.xml",
        app="expense",
    ),
)
# The app stamps every edit.
INCIDENTAL = ("expense.expense:modified_date",)


def _expenses(ctx: CheckContext) -> list[tuple[str, int, str]]:
    rows = ctx.query("expense", "SELECT name, amount, category FROM expense")
    return [(str(n or ""), int(a), _category(c)) for n, a, c in rows]


def _category(value: object) -> str:
    try:
        return CATEGORIES.get(int(str(value)), "Others")
    except ValueError:
        return "Others"


@check("expense.has_expense")
def has_expense(
    ctx: CheckContext, *, name: str, amount: float | None = None, category: str | None = None
) -> CheckResult:
    """An expense with this name (and amount in dollars, and category, when given)."""
    items = _expenses(ctx)
    for n, cents, cat in items:
        if normalize.text(n) != normalize.text(name):
            continue
        if amount is not None and cents != round(float(amount) * 100):
            continue
        if category is not None and normalize.text(cat) != normalize.text(category):
            continue
        return CheckResult(True, f"{n}: ${cents / 100:.2f} ({cat})")
    seen = ", ".join(f"{n} ${c / 100:.2f}" for n, c, _ in items)
    return CheckResult(False, f"expenses: {seen or 'none'}; looking for {name!r}")


@check("expense.missing")
def missing(ctx: CheckContext, *, name: str) -> CheckResult:
    """No expense has this name."""
    n = sum(normalize.text(e[0]) == normalize.text(name) for e in _expenses(ctx))
    return CheckResult(n == 0, f"{n} expenses named {name!r}")
