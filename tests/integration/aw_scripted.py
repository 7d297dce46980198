"""The UI-only solutions of tests/integration/test_aw_<app>.py as one agent, for whole-suite runs.

`ScriptedSolutions` is an agent factory for `mgfarm.suites.aw_eval.run_suite`: built with the
episode's `AwInstance` (AndroidWorld's task, its raw parameters, the replica's AsyncAndroidEnv), it
plays the solution written for that task class through the UI on its first turn, as `run_task`
does after `initialize_task`, then says it is done.
"""

from __future__ import annotations

from typing import Any

import adbutils

from mgfarm.suites.aw_tasks import AwInstance
from mgfarm.tasks.agents import DONE
from tests.integration import (
    test_aw_audiorecorder,
    test_aw_broccoli,
    test_aw_camera,
    test_aw_chrome,
    test_aw_clock,
    test_aw_contacts,
    test_aw_expense,
    test_aw_files,
    test_aw_gallery,
    test_aw_joplin,
    test_aw_markor,
    test_aw_opentracks,
    test_aw_osmand,
    test_aw_retromusic,
    test_aw_simple_calendar,
    test_aw_simpledraw,
    test_aw_smsmessenger,
    test_aw_system,
    test_aw_tasks,
    test_aw_vlc,
)
from tests.integration.aw_apps import AwDevice
from tests.integration.phone_driver import Phone

SOLUTIONS: dict[str, Any] = dict(
    [
        *test_aw_clock.TASKS,
        *test_aw_expense.TASKS,
        *test_aw_broccoli.TASKS,
        *test_aw_gallery.TASKS,
        *test_aw_simple_calendar.TASKS,
        *test_aw_simple_calendar.IR_TASKS,
        *test_aw_tasks.IR_TASKS,
        *test_aw_opentracks.IR_TASKS,
        *test_aw_audiorecorder.TASKS,
        *test_aw_camera.TASKS,
        *test_aw_chrome.TASKS,
        ("OpenAppTaskEval", test_aw_camera.open_app),
        ("SimpleDrawProCreateDrawing", test_aw_simpledraw.create_drawing),
        *test_aw_joplin.IR_TASKS,
        ("ContactsAddContact", test_aw_contacts.add_contact),
        *test_aw_files.TASKS,
        *test_aw_osmand.TASKS,
        *test_aw_vlc.TASKS,
        *test_aw_retromusic.TASKS,
        *test_aw_system.TASKS,
        *test_aw_system.COMPOSITE,
    ]
)
# The Markor and SMS solutions act through uiautomator2 (test_aw_markor.World), started once per replica.
UI_SOLUTIONS = {**test_aw_markor.SOLUTIONS, **test_aw_smsmessenger.SOLUTIONS, **test_aw_gallery.UI_SOLUTIONS}
WORLDS: dict[tuple[int, str], test_aw_markor.World] = {}


class ScriptedSolutions:
    """Solves the episode's task with its scripted UI solution in one turn, then says done."""

    def __init__(self, instance: AwInstance) -> None:
        self.instance = instance
        self.played = False

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        if not self.played:
            self.played = True
            inst = self.instance
            name = type(inst.task).__name__
            phone = Phone(adbutils.AdbClient(port=inst.adb_port).device(inst.serial))
            phone.home()
            device = AwDevice(inst.env, phone)
            if name in UI_SOLUTIONS:
                key = (inst.adb_port, inst.serial)  # one replica is one worker's: no lock needed
                world = WORLDS[key] = WORLDS.get(key) or test_aw_markor.connect_ui(device)
                world.device = device  # this episode's AndroidWorld env
                UI_SOLUTIONS[name](world, inst.raw)
            elif name in SOLUTIONS:
                SOLUTIONS[name](device, inst.task, inst.raw)
            else:
                raise LookupError(f"no scripted solution for {name}")
        return DONE


def main(argv: list[str]) -> int:
    """`python -m tests.integration.aw_scripted FARM [REPLICAS]`: every task with a scripted solution
    on a running farm (AndroidWorld's seed 30), the per-task table and the wall time."""
    from mgfarm.suites.aw_eval import markdown, run_suite

    farm, replicas = argv[0], int(argv[1]) if len(argv) > 1 else None
    names = sorted({*SOLUTIONS, *UI_SOLUTIONS})
    run = run_suite(farm, ScriptedSolutions, 30, names, replicas, None, show=False)
    print(markdown(run.rows))
    ok = sum(r.success for r in run.results)
    print(f"{ok}/{len(run.results)} succeeded in {run.seconds:.1f} s on {run.devices} replicas")
    return 0 if ok == len(run.results) else 1


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
