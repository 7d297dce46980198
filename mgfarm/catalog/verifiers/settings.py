"""Settings: the AOSP Settings app and `settings get` checks."""

from __future__ import annotations

from typing import Any

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check


@check("settings.equals")
def equals(ctx: CheckContext, *, namespace: str, key: str, value: Any) -> CheckResult:
    """`settings get NAMESPACE KEY` equals a value (numbers compared as numbers)."""
    got = ctx.device.settings_get(namespace, key)
    want = normalize.number(value) if isinstance(value, (int, float)) else value
    ok = (normalize.number(got) == want) if isinstance(want, float) else str(got) == str(value)
    return CheckResult(ok, f"{namespace}/{key} = {got} (want {value})")


@check("settings.between")
def between(ctx: CheckContext, *, namespace: str, key: str, low: float, high: float) -> CheckResult:
    """A numeric setting lies in [low, high]."""
    got = normalize.number(ctx.device.settings_get(namespace, key))
    ok = got is not None and float(low) <= got <= float(high)
    return CheckResult(ok, f"{namespace}/{key} = {got} (want {low}..{high})")
