"""Clock: alarms in DeskClock's alarms.db (table alarm_templates)."""

from __future__ import annotations

from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "alarms",
        "/data/data/com.google.android.deskclock/databases/alarms.db",
        app="clock",
        main="alarm_templates",
        edit="minutes = (minutes + 1) % 60",
        extra="INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label) "
        "VALUES (4, 44, 0, 1, 1, '')",
    ),
)


def _alarms(ctx: CheckContext) -> list[tuple[int, int, int, str]]:
    rows = ctx.query("alarms", "SELECT hour, minutes, enabled, label FROM alarm_templates")
    return [(int(h), int(m), int(e), str(label or "")) for h, m, e, label in rows]


@check("clock.has_alarm")
def has_alarm(
    ctx: CheckContext, *, hour: int, minute: int, enabled: bool | None = None, label: str | None = None
) -> CheckResult:
    """An alarm at HH:MM exists (optionally on/off and with a label)."""
    alarms = _alarms(ctx)
    found = [
        a
        for a in alarms
        if a[0] == int(hour)
        and a[1] == int(minute)
        and (enabled is None or bool(a[2]) == bool(enabled))
        and (label is None or a[3].strip().casefold() == str(label).strip().casefold())
    ]
    seen = ", ".join(
        f"{h:02d}:{m:02d}{'' if e else ' (off)'}{' ' + lab if lab else ''}" for h, m, e, lab in alarms
    )
    return CheckResult(bool(found), f"alarms: {seen or 'none'}")


@check("clock.no_alarm")
def no_alarm(ctx: CheckContext, *, hour: int, minute: int) -> CheckResult:
    """No alarm at HH:MM."""
    alarms = [a for a in _alarms(ctx) if a[0] == int(hour) and a[1] == int(minute)]
    return CheckResult(not alarms, f"{len(alarms)} alarms at {int(hour):02d}:{int(minute):02d}")


@check("clock.alarm_count")
def alarm_count(ctx: CheckContext, *, equals: int) -> CheckResult:
    """Number of alarms."""
    n = len(_alarms(ctx))
    return CheckResult(n == int(equals), f"{n} alarms (want {equals})")
