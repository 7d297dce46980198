"""Running AndroidWorld's own code against a simulated device, for the compatibility tests and docs.

Finding AndroidWorld ($MGFARM_ANDROID_WORLD, never copied into this project), preparing its copy with
generated protos, and its AsyncAndroidEnv over android_env's AdbCallParser are the package's
(`mgfarm.suites.androidworld`, also behind `mgfarm eval --suite androidworld`); this module adds the
checks of AndroidWorld's helpers and the table of what works.

`python -m tests.compat.androidworld [--write docs/compat.md] [--replicas N]` runs every helper on one
simulated device, then starts a farm of N replicas (default 3) and runs every registry task with the
`nothing` agent and every task with a scripted UI solution with it (`tests/integration/aw_scripted.py`),
and prints (or writes) the table: which tasks pass (set up, 0.0 untouched, 1.0 solved) and why the
others do not, with the wall time of both runs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mgfarm.bench.androidworld import SEED, Run, SuiteTiming, time_suite
from mgfarm.suites.androidworld import (
    ENV_VAR,
    android_world_source,
    async_env,
    make_env,
    prepare_android_world,
    registry,
)
from mgfarm.suites.aw_eval import SuiteRun
from mgfarm.tasks.jobs import EpisodeResult

__all__ = ["ENV_VAR", "android_world_source", "async_env", "make_env", "prepare_android_world"]

COMMAND = "python -m tests.compat.androidworld --write docs/compat.md"

# AndroidWorld app names (task.app_names) the simulated device has, and why the others are missing.
SIM_APPS = {
    "settings",
    "contacts",
    "clock",
    "files",
    "dialer",
    "phone",
    "pro expense",
    "simple calendar pro",
    "broccoli app",
    "markor",
    "simple sms messenger",
    "clipper",
    "tasks",
    "open tracks sports tracker",
    "joplin",
    "simple draw pro",
    "audio recorder",
    "simple gallery pro",
    "camera",
    "vlc",
    "retro music",
    "osmand",
    "chrome",
}


@dataclass
class Outcome:
    name: str
    works: bool
    why: str


def run(name: str, fn: Callable[[], object]) -> Outcome:
    try:
        fn()
    except Exception as exc:  # one line per failure: the table says why, the test shows the trace
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(last.filename).name}:{last.lineno}"
        return Outcome(
            name,
            False,
            f"{type(exc).__name__}: {str(exc).splitlines()[0][:140] if str(exc) else ''} ({where})",
        )
    return Outcome(name, True, "")


def helper_checks(env: Any) -> list[tuple[str, Callable[[], object]]]:
    """AndroidWorld's adb_utils helpers that tasks and agents call, each with a check of its result."""
    from android_world.env import adb_utils
    from android_world.utils import datetime_utils

    c = env.controller

    def expect(value: object, ok: bool, what: str) -> None:
        if not ok:
            raise AssertionError(f"{what}: got {value!r}")

    def current_activity() -> None:
        adb_utils.launch_app("contacts", c)
        activity = adb_utils.get_current_activity(c)[0]
        ok = bool(activity) and activity.startswith("com.google.android.contacts/")
        expect(activity, ok, "current activity")

    def screen() -> None:
        expect(adb_utils.get_screen_size(c), adb_utils.get_screen_size(c) == (1080, 2400), "screen size")
        expect(
            adb_utils.get_logical_screen_size(c),
            adb_utils.get_logical_screen_size(c) == (1080, 2400),
            "logical",
        )
        expect(adb_utils.get_orientation(c), adb_utils.get_orientation(c) == 0, "orientation")
        frame = adb_utils.get_physical_frame_boundary(c)
        expect(frame, frame == (0, 0, 1080, 2400), "physical frame")

    def call_state() -> None:
        adb_utils.call_emulator(c, "+15551234567")
        expect(adb_utils.get_call_state(c), adb_utils.get_call_state(c) == "RINGING", "ringing")
        adb_utils.end_call_if_active(c)
        expect(adb_utils.get_call_state(c), adb_utils.get_call_state(c) == "IDLE", "idle after end call")
        adb_utils.call_phone_number(c, "5551234")
        expect(adb_utils.get_call_state(c), adb_utils.get_call_state(c) == "OFFHOOK", "offhook")
        adb_utils.end_call_if_active(c)
        adb_utils.clear_android_emulator_call_log(c)

    def sms() -> None:
        adb_utils.text_emulator(c, "5551234", "hello from the modem")
        out = adb_utils.issue_generic_request(
            ["shell", "content", "query", "--uri", "content://sms/inbox"], c
        )
        expect(out.generic.output, b"hello from the modem" in out.generic.output, "sms inbox")

    def contacts() -> None:
        from android_world.utils import contacts_utils

        contacts_utils.clear_contacts(c)
        contacts_utils.add_contact("Ada Lovelace", "5550100", c, ui_delay_sec=0.2)
        names = [x.name for x in contacts_utils.list_contacts(c)]
        expect(names, names == ["Ada Lovelace"], "contacts after add_contact")

    def datetime_setup() -> None:
        datetime_utils.setup_datetime(c)
        tz = adb_utils.issue_generic_request(["shell", "getprop", "persist.sys.timezone"], c).generic.output
        expect(tz, tz.strip() == b"UTC", "time zone")

    def settings() -> None:
        adb_utils.toggle_airplane_mode("on", c)
        expect(None, adb_utils.check_airplane_mode(c), "airplane mode on")
        adb_utils.toggle_airplane_mode("off", c)
        adb_utils.toggle_wifi(c, "off")
        adb_utils.toggle_bluetooth(c, "on")
        adb_utils.set_brightness("max", c)
        settings = adb_utils.get_all_settings(c)
        expect(len(settings), len(settings) > 20, "settings list")

    def packages() -> None:
        names = adb_utils.get_all_package_names(c)
        expect(names, "com.android.settings" in names, "package names")
        expect(adb_utils.get_api_level(c), adb_utils.get_api_level(c) == 33, "api level")

    def app_lifecycle() -> None:
        adb_utils.launch_app("settings", c)
        adb_utils.close_app("settings", c)
        adb_utils.close_recents(c)
        adb_utils.press_home_button(c)
        adb_utils.press_back_button(c)
        adb_utils.clear_app_data("com.google.android.contacts", c)

    def input_actions() -> None:
        adb_utils.tap_screen(540, 1200, c)
        adb_utils.long_press(540, 1200, c)
        adb_utils.double_tap(540, 1200, c)
        adb_utils.type_text("hello world", c)
        adb_utils.press_enter_button(c)
        adb_utils.issue_generic_request(adb_utils.generate_swipe_command(500, 1500, 500, 500), c)

    def sqlite() -> None:
        out = adb_utils.execute_sql_command(
            "/data/data/com.android.providers.settings/databases/settings.db",
            "SELECT count(*) FROM global",
            c,
        )
        expect(out, out.status == 1, "sqlite3 over adb")

    def ui_dump() -> None:
        elements = env.controller.get_ui_elements()
        expect(len(elements), len(elements) > 3, "ui elements from uiautomator dump")

    def file_pull() -> None:
        from android_world.utils import file_utils

        adb_utils.issue_generic_request(["shell", "echo hi > /sdcard/Download/aw.txt"], c)
        with file_utils.tmp_directory_from_device("/sdcard/Download", c) as local:
            expect(os.listdir(local), "aw.txt" in os.listdir(local), "pulled directory")

    def intents_and_permissions() -> None:
        from android_env.proto import adb_pb2

        adb_utils.set_root_if_needed(c)
        adb_utils.grant_permissions("com.google.android.contacts", "android.permission.READ_CONTACTS", c)
        adb_utils.send_android_intent(
            "start", "android.intent.action.VIEW", c, data_uri="content://contacts/people/"
        )
        activity = adb_utils.get_current_activity(c)[0] or ""
        expect(activity, activity.startswith("com.google.android.contacts/"), "VIEW content://contacts")
        adb_utils.check_ok(adb_utils.start_activity("com.android.settings/.Settings", [], c))
        adb_utils.put_settings(
            adb_pb2.AdbRequest.SettingsRequest.Namespace.SYSTEM, "pointer_location", "0", c
        )
        adb_utils.disable_headsup_notifications(c)
        adb_utils.enable_headsup_notifications(c)
        adb_utils.set_default_app("sms_default_application", "com.android.messaging", c)
        adb_utils.delete_contacts(c)
        adb_utils.press_keyboard_generic("KEYCODE_A", c)
        adb_utils.issue_generic_request(adb_utils.generate_drag_and_drop_command(500, 1500, 500, 600), c)

    def orientation() -> None:
        # An app that leaves its orientation unspecified (the home screen of a phone stays portrait).
        adb_utils.launch_app("settings", c)
        try:
            adb_utils.change_orientation("portrait", c)
            expect(adb_utils.get_orientation(c), adb_utils.get_orientation(c) == 0, "portrait")
            adb_utils.change_orientation("landscape", c)
            expect(adb_utils.get_orientation(c), adb_utils.get_orientation(c) == 1, "landscape")
            size = adb_utils.get_logical_screen_size(c)
            expect(size, size == (2400, 1080), "logical size in landscape")
            expect(adb_utils.get_screen_size(c), adb_utils.get_screen_size(c) == (1080, 2400), "wm size")
            pixels = env.get_state(wait_to_stabilize=False).pixels.shape[:2]
            expect(pixels, tuple(pixels) == (1080, 2400), "a landscape screenshot")
            adb_utils.change_orientation("landscape_reversed", c)
            expect(adb_utils.get_orientation(c), adb_utils.get_orientation(c) == 3, "reverse landscape")
        finally:
            adb_utils.change_orientation("portrait", c)  # the checks after this one expect portrait
        expect(adb_utils.get_orientation(c), adb_utils.get_orientation(c) == 0, "portrait again")

    def clipboard() -> None:
        adb_utils.set_clipboard_contents("copied text", c)
        got = adb_utils.get_clipboard_contents(c)
        expect(got, got == "copied text", "clipboard through the Clipper app")

    return [
        ("get_current_activity / launch_app", current_activity),
        ("get_screen_size / logical size / orientation / physical frame", screen),
        ("call_emulator / get_call_state / end_call_if_active / call_phone_number", call_state),
        ("text_emulator (sms)", sms),
        ("contacts_utils.add_contact / list_contacts / clear_contacts", contacts),
        ("datetime_utils.setup_datetime (service call alarm)", datetime_setup),
        ("airplane mode, wifi, bluetooth, brightness, get_all_settings", settings),
        ("get_all_package_names / get_api_level", packages),
        ("launch_app / close_app / close_recents / home / back / clear_app_data", app_lifecycle),
        ("tap / long_press / double_tap / type_text / enter / swipe", input_actions),
        ("execute_sql_command", sqlite),
        ("controller.get_ui_elements (uiautomator)", ui_dump),
        ("file_utils.tmp_directory_from_device (ls -ll -au, pull)", file_pull),
        (
            "grant_permissions, send_android_intent, start_activity, put_settings, headsup, root, keys",
            intents_and_permissions,
        ),
        ("change_orientation", orientation),
        ("set_clipboard_contents / get_clipboard_contents (Clipper app)", clipboard),
    ]


@dataclass
class TaskRow:
    """One registry task: its set-up, its score untouched and after the scripted UI solution."""

    name: str
    init: str  # ok, fails, or - (not run: an app is missing)
    nothing: str  # the score with the `nothing` agent
    scripted: str  # the score after the scripted solution, or "no solution"
    why: str

    @property
    def passes(self) -> bool:
        return self.init == "ok" and self.nothing == untouched_score(self.name) and self.scripted == "1.0"


def untouched_score(name: str) -> str:
    """AndroidWorld's System*Verify tasks set their goal as the precondition (the agent must see that
    it already holds), so the untouched device scores 1.0 by design; every other task 0.0 (Clock's
    ClockStopWatchPausedVerify wants the running stopwatch paused)."""
    return "1.0" if name.startswith("System") and name.endswith("Verify") else "0.0"


# Why a task has no scripted solution, where the reason is known (from its test_aw_<app>.py).
NO_SOLUTION = {
    "ContactsNewContactDraft": (
        "its validator judges `env.get_state().forest`, the a11y forwarder's tree (fields by hint_text"
        ' "First name", "Last name", "Phone"; the label by "Home Phone"); this suite\'s env reads'
        " `uiautomator dump` (A11yMethod.UIAUTOMATOR), whose state has no forest, so is_successful"
        " cannot score there. Under AndroidWorld's own load_and_setup_env (A11yGrpcWrapper, the sim's"
        " forwarder) it scores 0.0 untouched and 1.0 after the UI solution (test_aw_contacts.py); the"
        " suite would need that wrapper per replica, which installs Google's forwarder APK downloaded"
        " from storage.googleapis.com"
    ),
}

# Why the untouched device meets a goal it should not, found by reading AndroidWorld's generator.
UNTOUCHED_SUCCESS = {
    "RecipeDeleteMultipleRecipesWithConstraint": (
        f"AndroidWorld's own draw for seed {SEED} asks to delete recipes using black garlic, and none of"
        " its generated recipes does (its generator lowers the count to 0): nothing to delete"
    ),
}


def score(result: EpisodeResult) -> str:
    return "1.0" if result.success else f"{result.progress:.1f}"


def task_rows(names: list[str], nothing: SuiteRun, scripted: SuiteRun, solved: set[str]) -> list[TaskRow]:
    """Each task's row from the `nothing` run over the whole registry and the scripted run."""
    untouched = {r.task_id: r for r in nothing.results}
    skipped = {r.task: r.error for r in nothing.rows if r.success == "skipped"}
    played = {r.task_id: r for r in scripted.results}
    rows = []
    for name in names:
        if name in skipped:
            rows.append(TaskRow(name, "-", "-", "-", skipped[name].removeprefix("skipped: ")))
            continue
        first = untouched[name]
        if first.steps == 0 and first.error:  # the episode failed before the agent's first step
            rows.append(TaskRow(name, "fails", "-", "-", f"initialize_task fails: {first.error}"))
            continue
        if name not in solved:
            why = NO_SOLUTION.get(name, "no scripted UI solution written yet")
            if score(first) != untouched_score(name):
                why += f"; the untouched device scores {score(first)}"
            rows.append(TaskRow(name, "ok", score(first), "no solution", why))
            continue
        second = played[name]
        why = "" if second.success else second.error or f"the scripted solution scored {second.progress:g}"
        if score(first) != untouched_score(name):
            wrong = UNTOUCHED_SUCCESS.get(name, f"the untouched device scores {score(first)}")
            why = "; ".join(filter(None, [wrong, why]))
        rows.append(TaskRow(name, "ok", score(first), score(second), why))
    return rows


def table(helpers: list[Outcome], tasks: list[TaskRow], timings: list[SuiteTiming]) -> str:
    def rows(items: list[Outcome]) -> list[str]:
        return [
            f"| {o.name} | {'works' if o.works else 'does not'} | {o.why.replace('|', '/')} |" for o in items
        ]

    def cell(text: str) -> str:
        return text.replace("|", "/").replace("\n", " ")

    passing = sum(t.passes for t in tasks)
    runs = [t.summary() for t in timings]
    replicas = runs[0]["replicas"] if runs else 0
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return "\n".join(
        [
            "# AndroidWorld on simulated devices",
            "",
            f"Generated by `{COMMAND} --replicas {replicas}` (AndroidWorld from `${ENV_VAR}`, unchanged).",
            "",
            f"**{passing} of {len(tasks)} tasks pass.** A task passes when AndroidWorld's `initialize_task`",
            "works on a simulated device, its `is_successful` gives 0.0 when nothing is done and 1.0 after",
            "the scripted UI-only solution of `tests/integration/test_aw_<app>.py` (taps, swipes and typing,",
            "no adb writes). The generator starts a farm of "
            f"{replicas} replicas and runs `mgfarm eval --suite androidworld` (seed {SEED}) twice:",
            "with the `nothing` agent over the whole registry, and with the scripted solutions",
            "(`tests/integration/aw_scripted.py`) over the tasks that have one; each episode starts from a",
            "snapshot load. AndroidWorld's System*Verify tasks set their goal as the precondition, so for",
            "them 1.0 untouched is right. Run the suite with your own agent: `mgfarm eval --suite",
            "androidworld --agent A`.",
            "",
            "This run: "
            + "; ".join(
                f"{r['agent']} on {r['episodes']} tasks, {r['succeeded']} scored 1.0, {r['wall_s']:.0f} s"
                for r in runs
            )
            + f" ({replicas} replicas, {os.cpu_count()} CPU cores, load average {load} at the end).",
            "",
            "## Registry tasks",
            "",
            "| task | status | initialize_task | nothing | scripted | why not |",
            "|---|---|---|---|---|---|",
            *[
                f"| {t.name} | {'passes' if t.passes else 'does not'} | {t.init} | {t.nothing} | {t.scripted}"
                f" | {cell(t.why)} |"
                for t in tasks
            ],
            "",
            "## Helpers that tasks and agents call",
            "",
            "Run on one simulated device through android_env's AdbCallParser.",
            "",
            "| helper | status | why not |",
            "|---|---|---|",
            *rows(helpers),
            "",
            "## Not in this table",
            "",
            "- M3A's per-step calls (state, logical size, orientation, physical frame, actions) run in",
            "  `test_compat_androidworld.py::test_m3a_steps_on_the_device`, with a scripted model.",
            "- `env_launcher.load_and_setup_env(console_port=, grpc_port=, adb_path=)` works on a device",
            "  served with `sim serve --grpc PORT`: AndroidWorld's controller wraps android_env's",
            "  AndroidEnv in A11yGrpcWrapper, which installs the accessibility forwarder APK, enables its",
            "  service and broadcasts SET_GRPC; the sim's forwarder (there once a package named",
            "  com.google.androidenv.accessibilityforwarder is installed: the sim runs no APK code) then",
            "  sends the screen's a11y forest to the wrapper over gRPC, so `get_state()` reads its",
            "  ui_elements from the forest, hint_text included (test_aw_load_env.py). The wrapper downloads",
            "  Google's APK from storage.googleapis.com, so that call needs the network (the test hands it",
            "  a stand-in APK), and AndroidWorld leaves android_env's adb server port at 5037. The table's",
            "  runs build AndroidWorld's `AsyncAndroidEnv` over an adb-only android_env environment with",
            "  `A11yMethod.UIAUTOMATOR`, which needs neither.",
            "- `adb emu` exits 0 even when the console answers `KO:`, exactly as the real adb client does",
            "  (adb's console client returns 0 once it could connect); read the `KO:` line.",
            "",
        ]
    )


def helper_outcomes() -> list[Outcome]:
    """Every helper check on one simulated device on a private adb server."""
    from mgfarm.adb.binary import find_adb
    from tests.integration.conftest import SimProcess, start_adb_server, stop_adb_server

    with tempfile.TemporaryDirectory(prefix="aw-compat-") as tmp:
        work = Path(tmp)
        server = start_adb_server(find_adb(), work / "home")
        sim = SimProcess(server, work, 1)
        home = os.environ.get("HOME")
        try:
            handle = sim.wait_ready()[0]
            os.environ["HOME"] = str(server.home)  # `adb emu` reads the console token from HOME
            env = async_env(str(server.binary), server.port, handle.serial)
            return [run(name, fn) for name, fn in helper_checks(env)]
        finally:
            if home is not None:
                os.environ["HOME"] = home
            sim.stop()
            stop_adb_server(server)


def main(argv: list[str]) -> int:
    replicas = int(argv[argv.index("--replicas") + 1]) if "--replicas" in argv else 3
    prepare_android_world()
    from tests.integration.aw_scripted import SOLUTIONS, UI_SOLUTIONS, ScriptedSolutions

    helpers = helper_outcomes()
    names = sorted(registry())
    solved = sorted(set(SOLUTIONS) | set(UI_SOLUTIONS))
    runs: list[Run] = [("nothing", "nothing", []), ("scripted", ScriptedSolutions, solved)]
    nothing, scripted = time_suite([replicas], runs, say=lambda msg: print(msg, file=sys.stderr))
    text = table(helpers, task_rows(names, nothing.run, scripted.run, set(solved)), [nothing, scripted])
    if "--write" in argv:
        Path(argv[argv.index("--write") + 1]).write_text(text)
    else:
        print(text)
    for timing in (nothing, scripted):
        print(timing.summary(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
