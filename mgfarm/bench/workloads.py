"""The bench's two workloads: which action each env takes at each step, and which steps are counted.

`mixed` is an agent's ordinary traffic: clicks, scrolls and back, passing through screens the
device (and its neighbours in the worker's shared frame cache) has drawn before. `new-frame` types
a number on the Phone app's dial pad, so every counted step shows a screen never drawn before and
no cache can help: the cost of a frame from scratch.

Envs are stepped together (`EnvPool.step_all`), so a step counts for all envs or for none; a step
counts when it is past every env's warm-up (a fresh device's first renders, fonts and caches) and
is, for `new-frame`, a tap that brings a new number on screen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

MIXED = "mixed"
NEW_FRAME = "new-frame"
WORKLOADS = (MIXED, NEW_FRAME)

DIALER = "Phone"  # a launcher label: open_app finds the dialer whichever profile names its package
# The number field shows this many characters before it ellipsizes; later digits change no pixel.
DIAL_DIGITS = 13
# The first digits of each number come from the env and cycle, so no two numbers of a farm share
# them; shorter strings (10 one-digit ones) are bound to repeat and are not counted.
UNIQUE_PREFIX = 4
# One cycle: open the dial pad, type DIAL_DIGITS digits, back (which closes the pad and clears it).
CYCLE = DIAL_DIGITS + 2


def counted(step: int, warmup: int) -> bool:
    """Whether step `step` (0-based) of a workload on a fresh episode is in the steady window."""
    return step >= warmup


def mixed_action(step: int, obs: dict[str, Any] | None, env: int = 0) -> dict[str, Any]:
    """Cheap actions that change the screen but never end the episode.

    Envs click different elements (`env` shifts the choice), so their trajectories part ways as
    an RL policy's would, rather than all showing the same screen at every step.
    """
    elements = obs["ui_elements"] if obs else ()
    choice = step % 3
    if choice == 0 and elements:
        return {"action_type": "click", "index": (step + env) % len(elements)}
    if choice == 1:
        return {"action_type": "scroll", "direction": "down"}
    return {"action_type": "navigate_back"}


def dial_number(env: int, cycle: int, envs: int) -> str:
    """The DIAL_DIGITS-digit number env `env` types in `cycle`: a prefix unique to (env, cycle), then
    digits that differ between envs and cycles."""
    prefix = f"{(cycle * envs + env) % 10**UNIQUE_PREFIX:0{UNIQUE_PREFIX}d}"
    rng = random.Random(f"{env}/{cycle}")
    return prefix + "".join(str(rng.randrange(10)) for _ in range(DIAL_DIGITS - UNIQUE_PREFIX))


def dial_step(step: int) -> tuple[int, int]:
    """(cycle, position) of a new-frame step; step 0 opens the Phone app, then cycles of CYCLE steps:
    position 0 opens the dial pad, 1..DIAL_DIGITS type digits, DIAL_DIGITS + 1 goes back."""
    return (step - 1) // CYCLE, (step - 1) % CYCLE


def new_frame_counted(step: int, warmup: int) -> bool:
    """Whether a new-frame step is counted: past warm-up, and a digit past the shared short prefixes."""
    if not counted(step, warmup) or step == 0:
        return False
    _, position = dial_step(step)
    return UNIQUE_PREFIX <= position <= DIAL_DIGITS


def _find(elements: Sequence[dict[str, Any]], resource_suffix: str, desc: str | None = None) -> int | None:
    for element in elements:
        if element["resource_id"].endswith(resource_suffix) and (
            desc is None or element["content_desc"] == desc
        ):
            return int(element["index"])
    return None


def new_frame_action(
    step: int, obs: dict[str, Any] | None, env: int = 0, envs: int = 1
) -> tuple[dict[str, Any], bool]:
    """The action of a new-frame step and whether it is the planned one.

    Element indices shift as the number grows (the number field joins the tree), so keys are
    found by id on every step. A screen that is not where the plan expects (a tap that did not
    register, a dialog) gets a step back towards the dial pad, reported as off plan.
    """
    if step == 0:
        return {"action_type": "open_app", "app_name": DIALER}, True
    elements = obs["ui_elements"] if obs else ()
    cycle, position = dial_step(step)
    if position == CYCLE - 1:
        return {"action_type": "navigate_back"}, True
    if position == 0:
        fab = _find(elements, "dialpad_fab")
        if fab is None:
            return {"action_type": "open_app", "app_name": DIALER}, False
        return {"action_type": "click", "index": fab}, True
    digit = dial_number(env, cycle, envs)[position - 1]
    key = _find(elements, f"dialpad_key_{digit}", digit)
    if key is None:
        fab = _find(elements, "dialpad_fab")
        if fab is not None:
            return {"action_type": "click", "index": fab}, False
        return {"action_type": "open_app", "app_name": DIALER}, False
    return {"action_type": "click", "index": key}, True


def steps_for(workload: str, warmup: int, window: int) -> int:
    """Steps to run on a fresh episode so that at least `window` of them are counted."""
    total = 0
    have = 0
    is_counted = new_frame_counted if workload == NEW_FRAME else counted
    while have < window:
        have += is_counted(total, warmup)
        total += 1
    return total
