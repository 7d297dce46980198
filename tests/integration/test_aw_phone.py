"""AndroidWorld's Phone tasks, unchanged, on a simulated device with the default profile (Google's
dialer, com.google.android.dialer, whose package their validator checks).

AndroidWorld's registry has these tasks commented out (emulator calls were flaky); their classes still
run here: each clears the call log, scores 0.0 untouched and 1.0 once the in-call screen of the right
number is up with the call off-hook, reached by taps only (dial pad, Recents).

PhoneAnswerCall is not here: run_task presses HOME after `initialize_task`, and the simulated device
has no incoming-call notification (heads-up or in the shade) to bring the ringing call's screen back;
opening Phone shows its main screen, which has no Answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]


def phone_task(name: str) -> type:
    from android_world.task_evals.single import phone

    cls: type = getattr(phone, name)
    return cls


def dial(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Open the dial pad, tap each digit, then the call button."""
    dev.launch("phone")
    dev.phone.tap(desc="key pad")
    for digit in raw["phone_number"]:
        dev.phone.tap(desc=digit)
    dev.phone.tap(desc="dial")


def call_back_from_recents(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """The newest row of Recents is the call the task made or missed; its call button dials it."""
    dev.launch("phone")
    dev.phone.tap(text="Recents")
    dev.phone.tap(desc=f"Call {raw['phone_number']}")


TASKS = [
    ("PhoneMakeCall", dial),
    ("PhoneRedialNumber", call_back_from_recents),
    ("PhoneReturnMissedCall", call_back_from_recents),
]


@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_phone_task(aw_device: AwDevice, name: str, solve: Any) -> None:
    run_task(aw_device, phone_task(name), 1, solve)
