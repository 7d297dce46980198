"""`am stack list|remove|info` and `am task lock`: root tasks as ActivityTaskManager prints them (Android 13).

android_env finds the resumed activity with `am stack list | grep visible=true` and reads the last
`{...}` of that line; AndroidWorld closes recent apps with `am stack remove ID`.
"""

from __future__ import annotations

from mgfarm.sim.shell.dumpsys import task_rows
from mgfarm.sim.shell.dumpsys_system import logical_size
from mgfarm.sim.shell.registry import Invocation, is_number

CONFIGURATION = (
    "{1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port finger qwerty/v/v -nav/h "
    "winConfig={ mBounds=Rect(0, 0 - %(w)d, %(h)d) mAppBounds=Rect(0, 0 - %(w)d, %(h)d) "
    "mMaxBounds=Rect(0, 0 - %(w)d, %(h)d) mDisplayRotation=ROTATION_0 mWindowingMode=fullscreen "
    "mDisplayWindowingMode=fullscreen mActivityType=standard mAlwaysOnTop=undefined mRotation=ROTATION_0} "
    "s.6 fontWeightAdjustment=0}"
)


def stack_list(inv: Invocation) -> str:
    """RootTaskInfo.toString of each root task, front first; only the front task is visible."""
    w, h = logical_size(inv)
    bounds = f"[0,0][{w},{h}]"
    out = []
    for i, (task_id, _, records) in enumerate(task_rows(inv)):
        if not records:
            continue
        base, top = records[0], records[-1]
        out.append(f"RootTask id={task_id} bounds={bounds} displayId=0 userId=0\n")
        out.append(f" configuration={CONFIGURATION % {'w': w, 'h': h}}\n")
        out.append(
            f"  taskId={task_id}: {base[1]}/{base[2]} bounds={bounds} userId=0 visible={str(i == 0).lower()} "
            f"topActivity=ComponentInfo{{{top[1]}/{top[2]}}}\n"
        )
        out.append("\n")
    return "".join(out)


def run_stack(inv: Invocation, verb: str, args: list[str]) -> int:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if verb == "task":
        if sub in ("lock", "resizeable", "resize"):
            return 0  # screen pinning and resizing are not simulated; the shell accepts them
        inv.err(f"Error: unknown command '{sub}'\n")
        return 255
    if sub == "list":
        inv.out(stack_list(inv))
        return 0
    if sub in ("remove", "info"):
        if not rest or not is_number(rest[0]):
            inv.err(f"Error: {sub} needs a root task id, e.g. am stack {sub} 12\n")
            return 255
        task_id = int(rest[0])
        if sub == "info":
            lines = [
                line for line in stack_list(inv).split("\n\n") if line.startswith(f"RootTask id={task_id} ")
            ]
            inv.out(lines[0] + "\n" if lines else "null\n")
            return 0
        inv.device.services.activities.remove_task(
            task_id
        )  # an unknown id is ignored, as ActivityTaskManager does
        return 0
    inv.err(f"Error: unknown command '{sub}'\n")
    return 255
