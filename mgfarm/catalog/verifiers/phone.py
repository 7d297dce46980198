"""Phone: the call log (calllog.db in the contacts provider, `content://call_log/calls`)."""

from __future__ import annotations

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl

OUTGOING = 2
DATABASES = (
    DatabaseDecl(
        "calllog",
        "/data/data/com.android.providers.contacts/databases/calllog.db",
        app="phone",
        main="calls",
        edit="duration = duration + 60",
        extra="INSERT INTO calls (number, date, duration, type, new) "
        "VALUES ('5550009999', 1772600000000, 60, 2, 0)",
    ),
)
# Opening the call log marks missed calls as seen, as on a real phone.
INCIDENTAL = ("calllog.calls:new,is_read",)


@check("phone.called")
def called(ctx: CheckContext, *, number: str) -> CheckResult:
    """The call log holds an outgoing call to this number (read from calllog.db: a number is any
    text a dialer was given, and `content query` output can be added to by one holding a line break)."""
    outgoing = [
        str(n) for (n,) in ctx.query("calllog", "SELECT number FROM calls WHERE type = ?", (OUTGOING,))
    ]
    ok = any(normalize.same_number(n, number) for n in outgoing)
    return CheckResult(ok, f"{len(outgoing)} outgoing calls {outgoing[-3:]}; looking for {number}")


@check("phone.outgoing_count")
def outgoing_count(ctx: CheckContext, *, equals: int) -> CheckResult:
    """Number of outgoing calls in the log."""
    n = len(ctx.query("calllog", "SELECT _id FROM calls WHERE type = ?", (OUTGOING,)))
    return CheckResult(n == int(equals), f"{n} outgoing calls (want {equals})")
