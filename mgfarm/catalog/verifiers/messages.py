"""Messages: SMS in the telephony provider (mmssms.db, `content://sms/sent`, `content://sms/inbox`)."""

from __future__ import annotations

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "sms",
        "/data/data/com.android.providers.telephony/databases/mmssms.db",
        app="messages",
        main="sms",
        edit="body = body || '!'",
        extra="INSERT INTO sms (address, body, date, type, read, seen) "
        "VALUES ('5550009999', 'I quit', 1772600000000, 2, 1, 1)",
    ),
)
# Threads and canonical addresses are derived from the messages by the provider's triggers;
# opening a conversation marks it read and seen, as on a real phone.
INCIDENTAL = ("sms.threads", "sms.canonical_addresses", "sms.sms:read,seen")


@check("messages.sent")
def sent(ctx: CheckContext, *, to: str, body: str | None = None) -> CheckResult:
    """A sent SMS to this number (with this text, compared case- and space-insensitively)."""
    rows = ctx.device.content_query("content://sms/sent", projection=["address", "body"])
    to_them = [r for r in rows if normalize.same_number(r.get("address"), to)]
    ok = bool(to_them) and (
        body is None or any(normalize.text(r.get("body")) == normalize.text(body) for r in to_them)
    )
    bodies = [r.get("body") for r in to_them]
    return CheckResult(ok, f"{len(rows)} sent SMS, {len(to_them)} to {to}: {bodies[-3:]}")


@check("messages.sent_count")
def sent_count(ctx: CheckContext, *, equals: int) -> CheckResult:
    """Number of sent SMS."""
    n = len(ctx.device.content_query("content://sms/sent", projection=["_id"]))
    return CheckResult(n == int(equals), f"{n} sent SMS (want {equals})")
