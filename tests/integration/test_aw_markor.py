"""AndroidWorld's Markor tasks, unchanged, against the simulated Markor (net.gsantner.markor).

Each task: AndroidWorld's `initialize_task` works, `is_successful` is 0.0 before anything is done and
1.0 after a scripted solution that only taps, long-presses, types and scrolls what the UI tree shows
(uiautomator2), as an agent would. AndroidWorld comes from $MGFARM_ANDROID_WORLD
(tests/compat/androidworld.py copies it and builds its env); without it these tests skip.

The shared driving helpers here (`world`, `check_task`, `launch`, `scroll_to`) are also used by
test_aw_smsmessenger.py.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mgfarm.farm.adb import find_adb
from tests.compat.androidworld import ENV_VAR, android_world_source, async_env, prepare_android_world
from tests.integration.conftest import AdbServer, SimProcess, start_adb_server, stop_adb_server

SKIP_REASON = f"set {ENV_VAR} to an AndroidWorld checkout to run AndroidWorld's tasks"
PKG = "net.gsantner.markor"

pytestmark = pytest.mark.skipif(android_world_source() is None, reason=SKIP_REASON)


@dataclass
class World:
    """AndroidWorld's env and a uiautomator2 device on one simulated device."""

    env: Any
    ui: Any  # uiautomator2.Device
    server: AdbServer
    serial: str


def world(tmp: Path) -> Iterator[World]:
    """An adb server, a simulated device and AndroidWorld's env over them (a fixture's body)."""
    pytest.importorskip("android_env", reason="android_env is not installed (the compat extra)")
    u2 = pytest.importorskip("uiautomator2", reason="uiautomator2 is not installed")
    prepare_android_world(tmp)
    server = start_adb_server(find_adb(), tmp / "adbhome")
    sim = SimProcess(server, tmp, 1)
    old_home = os.environ.get("HOME")
    try:
        serial = sim.wait_ready()[0].serial
        os.environ["HOME"] = str(server.home)  # `adb emu` reads the console token from $HOME
        env = async_env(str(server.binary), server.port, serial)
        ui = u2.connect(server.client().device(serial))
        ui.settings["wait_timeout"] = 3.0
        for attempt in range(3):  # the server's first launch can lose a race on a loaded machine
            try:
                ui.start_uiautomator()
                break
            except u2.exceptions.LaunchUiAutomationError:
                if attempt == 2:
                    raise
        yield World(env, ui, server, serial)
        ui.stop_uiautomator()
    finally:
        if old_home is not None:
            os.environ["HOME"] = old_home
        sim.stop()
        stop_adb_server(server)


def params_for(cls: Any, seed: int) -> dict[str, Any]:
    """AndroidWorld's own random parameters for a task class, with a fixed seed."""
    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    params: dict[str, Any] = cls.generate_random_params()
    return params


def check_task(w: World, cls: Any, seed: int, solve: Callable[[World, dict[str, Any]], None]) -> None:
    """AndroidWorld's initialize_task works; is_successful is 0.0 before and 1.0 after `solve`."""
    task = cls(params_for(cls, seed))
    task.initialize_task(w.env)
    try:
        assert task.is_successful(w.env) == 0.0, "the task counted as done before anything was done"
        solve(w, task.params)
        assert task.is_successful(w.env) == 1.0, f"the scripted solution did not succeed: {task.goal}"
    finally:
        task.tear_down(w.env)


def launch(w: World, app: str) -> None:
    """AndroidWorld's open_app action (after a force stop, so no screen is left from another test)."""
    from android_world.env import adb_utils

    adb_utils.close_app(app, w.env.controller)
    adb_utils.launch_app(app, w.env.controller)


def scroll_to(w: World, attempts: int = 15, **selector: Any) -> Any:
    """The element matching `selector`, scrolling the frontmost list down, then up, until it shows."""
    el = w.ui(**selector)
    if el.exists:
        return el
    for down in (True, False):
        for _ in range(attempts):
            lists = w.ui(scrollable=True)
            if not lists.exists:
                break
            box = lists[lists.count - 1].info["bounds"]  # a dialog's list comes after the page's
            x = (box["left"] + box["right"]) // 2
            top, bottom = box["top"] + 30, box["bottom"] - 30
            mid = (top + bottom) // 2
            if down:
                w.ui.swipe(x, bottom, x, mid, 0.3)
            else:
                w.ui.swipe(x, top, x, mid, 0.3)
            if el.exists:
                return el
    raise AssertionError(f"no element {selector} on screen, even after scrolling")


# ---- Markor through its screens
def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def item(w: World, name: str) -> Any:
    return scroll_to(w, resourceId=rid("ui__filesystem_item__title"), text=name)


def open_note(w: World, name: str) -> str:
    """Open a note of the current folder and return the editor's text."""
    item(w, name).click()
    return str(w.ui(resourceId=rid("document__fragment__edit__highlighting_editor")).get_text() or "")


def write_and_leave(w: World, text: str) -> None:
    w.ui(resourceId=rid("document__fragment__edit__highlighting_editor")).set_text(text)
    w.ui.press("back")  # closes the keyboard
    if w.ui(resourceId=rid("document__fragment__edit__highlighting_editor")).exists:
        w.ui.press("back")  # leaves the editor, which saves


def select(w: World, name: str) -> None:
    item(w, name).long_click()


def new_note(w: World, name: str, text: str, ext: str | None = None) -> None:
    w.ui(description="Create a new file or folder").click()
    w.ui(resourceId=rid("new_file_dialog__name")).set_text(name)
    if ext is not None:
        w.ui(resourceId=rid("new_file_dialog__ext")).set_text(ext)
    w.ui(text="OK").click()
    write_and_leave(w, text)


def rename_selected(w: World, new: str) -> None:
    w.ui(description="Rename").click()
    w.ui(resourceId=rid("new_name")).set_text(new)
    w.ui(text="OK").click()


def delete_selected(w: World) -> None:
    w.ui(description="Delete").click()
    w.ui(text="OK").click()


@pytest.fixture(scope="module")
def w(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from world(tmp_path_factory.mktemp("aw-markor"))


def markor(name: str) -> Any:
    from android_world.task_evals.single import markor as tasks

    return getattr(tasks, name)


SEEDS = (1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_create_note(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        new_note(w, p["file_name"], p["text"])

    check_task(w, markor("MarkorCreateNote"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_create_folder(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        w.ui(description="Create a new file or folder").click()
        w.ui(resourceId=rid("new_file_dialog__name")).set_text(p["folder_name"])
        w.ui(text="Folder").click()

    check_task(w, markor("MarkorCreateFolder"), seed, solve)


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_edit_note(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        text = open_note(w, p["file_name"])
        if p["edit_type"] == "header":
            text = p["header"] + "\n" + text
        elif p["edit_type"] == "footer":
            text = text.rstrip("\n") + "\n" + p["footer"]
        else:
            text = p["replace_text"]
        write_and_leave(w, text)

    check_task(w, markor("MarkorEditNote"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_note(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        select(w, p["file_name"])
        delete_selected(w)

    check_task(w, markor("MarkorDeleteNote"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_newest_note(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        w.ui(description="Sort by date").click()
        w.ui(resourceId=rid("ui__filesystem_item__title"))[0].long_click()  # newest first
        delete_selected(w)

    check_task(w, markor("MarkorDeleteNewestNote"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_all_notes(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        w.ui(resourceId=rid("ui__filesystem_item__title"))[0].long_click()
        w.ui(description="Select all").click()
        delete_selected(w)

    check_task(w, markor("MarkorDeleteAllNotes"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_move_note(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        item(w, p["source_folder"]).click()
        select(w, p["file_name"])
        w.ui(description="Move").click()
        scroll_to(w, resourceId=rid("move_item_title"), text=p["destination_folder"]).click()
        w.ui(text="OK").click()

    check_task(w, markor("MarkorMoveNote"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_merge_notes(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        parts = []
        for key in ("file1_name", "file2_name", "file3_name"):
            parts.append(open_note(w, p[key]).strip())
            w.ui.press("back")
        new_note(w, p["new_file_name"], "\n\n".join(parts), ext="")

    check_task(w, markor("MarkorMergeNotes"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_change_note_content(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        open_note(w, p["original_name"])
        write_and_leave(w, p["updated_content"])
        select(w, p["original_name"])
        rename_selected(w, p["new_name"])

    check_task(w, markor("MarkorChangeNoteContent"), seed, solve)


@pytest.mark.parametrize("seed", SEEDS)
def test_add_note_header(w: World, seed: int) -> None:
    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        text = open_note(w, p["original_name"])
        write_and_leave(w, p["header"] + "\n\n" + text)
        select(w, p["original_name"])
        rename_selected(w, p["new_name"])

    check_task(w, markor("MarkorAddNoteHeader"), seed, solve)


def test_transcribe_receipt(w: World) -> None:
    """The receipt image lands in DCIM; the scripted agent already knows its rows (there is no
    Simple Gallery on the sim to look at it with), and writes them through Markor's screens."""

    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        new_note(w, p["file_name"], p["text"])

    check_task(w, markor("MarkorTranscribeReceipt"), 1, solve)


def test_transcribe_video(w: World) -> None:
    """The videos land in Download; the scripted agent knows the frames' words (there is no VLC on
    the sim to watch them with), and writes them through Markor's screens."""

    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        new_note(w, p["file_name"], ", ".join(p["messages"]))

    check_task(w, markor("MarkorTranscribeVideo"), 1, solve)


def test_create_note_from_clipboard(w: World) -> None:
    """AndroidWorld sets the clipboard through the Clipper app; the note gets it by long press, Paste."""

    def solve(w: World, p: dict[str, Any]) -> None:
        launch(w, "markor")
        w.ui(description="Create a new file or folder").click()
        w.ui(resourceId=rid("new_file_dialog__name")).set_text(p["file_name"])
        w.ui(text="OK").click()
        w.ui(resourceId=rid("document__fragment__edit__highlighting_editor")).long_click()
        w.ui(text="Paste").click()
        w.ui.press("back")
        w.ui.press("back")

    check_task(w, markor("MarkorCreateNoteFromClipboard"), 1, solve)
