"""The call-order rules both env pools (threads and Ray) enforce on step_async / step_wait."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from mgfarm.errors import MgfarmError

T = TypeVar("T")


def check_step_async(size: int, actions: Sequence[Any], pending: object) -> None:
    """Refuses a batch that is not one action per env, or a second step_async before step_wait."""
    if len(actions) != size:
        raise MgfarmError(f"step needs {size} actions (one per env), got {len(actions)}.")
    if pending is not None:
        raise MgfarmError("step_async called twice; call step_wait() first.")


def outstanding(pending: T | None) -> T:
    """What step_async sent, for step_wait; refuses step_wait when no step_async is outstanding."""
    if pending is None:
        raise MgfarmError("step_wait called without step_async; call step_async(actions) first.")
    return pending
