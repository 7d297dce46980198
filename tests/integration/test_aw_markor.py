"""AndroidWorld's Markor tasks, unchanged, against the simulated Markor (net.gsantner.markor).

Each task: AndroidWorld's `initialize_task` works, `is_successful` is 0.0 before anything is done and
1.0 after a scripted solution that only taps, long-presses, types and scrolls what the UI tree shows
(uiautomator2), as an agent would. AndroidWorld comes from $MGFARM_ANDROID_WORLD
(tests/compat/androidworld.py copies it and builds its env); without it these tests skip.

The device and AndroidWorld's env come from tests/integration/aw_apps.py; the uiautomator2 helpers
here (`with_ui`, `check_task`, `launch`, `scroll_to`) are also used by test_aw_smsmessenger.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.integration import test_aw_vlc
from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]  # the module fixture both AndroidWorld app test modules run on

PKG = "net.gsantner.markor"


@dataclass
class World:
    """AndroidWorld's env on a simulated device (aw_apps.aw_device) and uiautomator2 on the same device."""

    device: AwDevice
    ui: Any  # uiautomator2.Device

    @property
    def env(self) -> Any:
        return self.device.env


def connect_ui(device: AwDevice) -> World:
    """uiautomator2 started on the AndroidWorld device."""
    u2 = pytest.importorskip("uiautomator2", reason="uiautomator2 is not installed")
    ui = u2.connect(device.phone.d)
    ui.settings["wait_timeout"] = 3.0
    for attempt in range(3):  # the server's first launch can lose a race on a loaded machine
        try:
            ui.start_uiautomator()
            break
        except u2.exceptions.LaunchUiAutomationError:
            if attempt == 2:
                raise
    return World(device, ui)


def with_ui(device: AwDevice) -> Iterator[World]:
    """A module fixture's body: uiautomator2 started on the AndroidWorld device, stopped after."""
    world = connect_ui(device)
    yield world
    world.ui.stop_uiautomator()


def check_task(w: World, cls: Any, seed: int, solve: Callable[[World, dict[str, Any]], None]) -> None:
    """aw_apps.run_task (init, 0.0 untouched, 1.0 after `solve`) with the task's parameters."""
    run_task(w.device, cls, seed, lambda _device, _task, raw: solve(w, raw))


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
def w(aw_device: AwDevice) -> Iterator[World]:
    yield from with_ui(aw_device)


def markor(name: str) -> Any:
    from android_world.task_evals.single import markor as tasks

    return getattr(tasks, name)


# ---- one solution per task class (tests/integration/aw_scripted.py plays them as an agent)
def create_note(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    new_note(w, p["file_name"], p["text"])


def create_folder(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    w.ui(description="Create a new file or folder").click()
    w.ui(resourceId=rid("new_file_dialog__name")).set_text(p["folder_name"])
    w.ui(text="Folder").click()


def edit_note(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    text = open_note(w, p["file_name"])
    if p["edit_type"] == "header":
        text = p["header"] + "\n" + text
    elif p["edit_type"] == "footer":
        text = text.rstrip("\n") + "\n" + p["footer"]
    else:
        text = p["replace_text"]
    write_and_leave(w, text)


def delete_note(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    select(w, p["file_name"])
    delete_selected(w)


def delete_newest_note(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    w.ui(description="Sort by date").click()
    w.ui(resourceId=rid("ui__filesystem_item__title"))[0].long_click()  # newest first
    delete_selected(w)


def delete_all_notes(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    w.ui(resourceId=rid("ui__filesystem_item__title"))[0].long_click()
    w.ui(description="Select all").click()
    delete_selected(w)


def move_note(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    item(w, p["source_folder"]).click()
    select(w, p["file_name"])
    w.ui(description="Move").click()
    scroll_to(w, resourceId=rid("move_item_title"), text=p["destination_folder"]).click()
    w.ui(text="OK").click()


def merge_notes(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    parts = []
    for key in ("file1_name", "file2_name", "file3_name"):
        parts.append(open_note(w, p[key]).strip())
        w.ui.press("back")
    new_note(w, p["new_file_name"], "\n\n".join(parts), ext="")


def change_note_content(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    open_note(w, p["original_name"])
    write_and_leave(w, p["updated_content"])
    select(w, p["original_name"])
    rename_selected(w, p["new_name"])


def add_note_header(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    text = open_note(w, p["original_name"])
    write_and_leave(w, p["header"] + "\n\n" + text)
    select(w, p["original_name"])
    rename_selected(w, p["new_name"])


def transcribe_receipt(w: World, p: dict[str, Any]) -> None:
    """The receipt's rows (which a model reads from receipt.png in the gallery: test_aw_gallery views
    it first) written as receipt.md through Markor's screens."""
    launch(w, "markor")
    new_note(w, p["file_name"], p["text"])


def transcribe_video(w: World, p: dict[str, Any]) -> None:
    """The videos land in Download; the solution plays the video in VLC, whose player shows each frame,
    seeking 10 s at a time past each 8-second word, then writes the words (the scripted agent knows
    them: it reads no pixels) through Markor's screens."""
    test_aw_vlc.play(w.device, p["video_name"])
    for _ in p["messages"][1:]:
        w.device.phone.tap(desc="Forward 10 seconds")
    launch(w, "markor")
    new_note(w, p["file_name"], ", ".join(p["messages"]))


def create_note_from_clipboard(w: World, p: dict[str, Any]) -> None:
    """AndroidWorld sets the clipboard through the Clipper app; the note gets it by long press, Paste."""
    launch(w, "markor")
    w.ui(description="Create a new file or folder").click()
    w.ui(resourceId=rid("new_file_dialog__name")).set_text(p["file_name"])
    w.ui(text="OK").click()
    w.ui(resourceId=rid("document__fragment__edit__highlighting_editor")).long_click()
    w.ui(text="Paste").click()
    w.ui.press("back")
    w.ui.press("back")


SOLUTIONS: dict[str, Callable[[World, dict[str, Any]], None]] = {
    "MarkorCreateNote": create_note,
    "MarkorCreateFolder": create_folder,
    "MarkorEditNote": edit_note,
    "MarkorDeleteNote": delete_note,
    "MarkorDeleteNewestNote": delete_newest_note,
    "MarkorDeleteAllNotes": delete_all_notes,
    "MarkorMoveNote": move_note,
    "MarkorMergeNotes": merge_notes,
    "MarkorChangeNoteContent": change_note_content,
    "MarkorAddNoteHeader": add_note_header,
    "MarkorTranscribeReceipt": transcribe_receipt,
    "MarkorTranscribeVideo": transcribe_video,
    "MarkorCreateNoteFromClipboard": create_note_from_clipboard,
}


SEEDS = (1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_create_note(w: World, seed: int) -> None:
    check_task(w, markor("MarkorCreateNote"), seed, create_note)


@pytest.mark.parametrize("seed", SEEDS)
def test_create_folder(w: World, seed: int) -> None:
    check_task(w, markor("MarkorCreateFolder"), seed, create_folder)


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_edit_note(w: World, seed: int) -> None:
    check_task(w, markor("MarkorEditNote"), seed, edit_note)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_note(w: World, seed: int) -> None:
    check_task(w, markor("MarkorDeleteNote"), seed, delete_note)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_newest_note(w: World, seed: int) -> None:
    check_task(w, markor("MarkorDeleteNewestNote"), seed, delete_newest_note)


@pytest.mark.parametrize("seed", SEEDS)
def test_delete_all_notes(w: World, seed: int) -> None:
    check_task(w, markor("MarkorDeleteAllNotes"), seed, delete_all_notes)


@pytest.mark.parametrize("seed", SEEDS)
def test_move_note(w: World, seed: int) -> None:
    check_task(w, markor("MarkorMoveNote"), seed, move_note)


@pytest.mark.parametrize("seed", SEEDS)
def test_merge_notes(w: World, seed: int) -> None:
    check_task(w, markor("MarkorMergeNotes"), seed, merge_notes)


@pytest.mark.parametrize("seed", SEEDS)
def test_change_note_content(w: World, seed: int) -> None:
    check_task(w, markor("MarkorChangeNoteContent"), seed, change_note_content)


@pytest.mark.parametrize("seed", SEEDS)
def test_add_note_header(w: World, seed: int) -> None:
    check_task(w, markor("MarkorAddNoteHeader"), seed, add_note_header)


def test_transcribe_receipt(w: World) -> None:
    check_task(w, markor("MarkorTranscribeReceipt"), 1, transcribe_receipt)


def test_transcribe_video(w: World) -> None:
    check_task(w, markor("MarkorTranscribeVideo"), 1, transcribe_video)


def test_create_note_from_clipboard(w: World) -> None:
    check_task(w, markor("MarkorCreateNoteFromClipboard"), 1, create_note_from_clipboard)
