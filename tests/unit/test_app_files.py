"""Files (Google's DocumentsUI) moves and copies a selected file through its destination picker, as
Android 13 does: long press, More options, Move to… / Copy to…, browse, Move / Copy."""

from __future__ import annotations

from pathlib import Path

from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find

PKG = "com.google.android.documentsui"
PICK = "com.android.documentsui.picker.PickActivity"


def files(tmp_path: Path) -> tuple[SimDevice, Screen]:
    device = boot_device(tmp_path)
    for folder in ("Download", "Documents", "Music"):
        device.fs.mkdir(f"/sdcard/{folder}", parents=True)
    device.fs.write_bytes("/sdcard/Download/report.txt", b"quarterly")
    device.fs.write_bytes("/sdcard/Download/keep.txt", b"keep")
    screen = Screen(device)
    screen.am.launch(PKG)
    return device, screen


def long_press(screen: Screen, text: str) -> None:
    x, y = find(screen.xml(), text=text).center
    screen.wm.long_press(x, y)


def test_move_to_moves_the_selected_file_into_the_folder_picked(tmp_path: Path) -> None:
    device, screen = files(tmp_path)
    screen.tap(text="Download")
    long_press(screen, "report.txt")
    screen.tap(desc="More options")
    screen.tap(text="Move to…")
    assert screen.am.resumed() == (PKG, PICK)
    assert screen.has(rid="android:id/title", text="keep.txt")  # the picker opens in the file's folder
    assert find(screen.xml(), text="Move", rid="android:id/button1").attrs["enabled"] == "false"
    screen.tap(desc="Navigate up")
    screen.tap(text="Music")
    screen.tap(text="Move", rid="android:id/button1")
    assert device.fs.read_bytes("/sdcard/Music/report.txt") == b"quarterly"
    assert not device.fs.exists("/sdcard/Download/report.txt")
    assert device.fs.exists("/sdcard/Download/keep.txt")
    assert screen.am.resumed() == (PKG, "com.android.documentsui.files.FilesActivity")
    assert not screen.has(text="1 selected")  # the moved file's selection is gone
    assert screen.has(text="keep.txt") and not screen.has(text="report.txt")


def test_move_into_the_files_own_folder_is_refused_and_cancel_changes_nothing(tmp_path: Path) -> None:
    device, screen = files(tmp_path)
    screen.tap(text="Download")
    long_press(screen, "report.txt")
    screen.tap(desc="More options")
    screen.tap(text="Move to…")
    screen.tap(text="Move", rid="android:id/button1")  # disabled in the source folder
    assert screen.am.resumed() == (PKG, PICK)
    screen.tap(rid=f"{PKG}:id/breadcrumb_text", text="Internal storage")
    screen.tap(text="Music")
    screen.tap(text="Cancel", rid="android:id/button2")
    assert device.fs.exists("/sdcard/Download/report.txt")
    assert device.fs.listdir("/sdcard/Music") == []


def test_copy_to_keeps_the_original_and_a_name_taken_there_is_not_overwritten(tmp_path: Path) -> None:
    device, screen = files(tmp_path)
    device.fs.write_bytes("/sdcard/Documents/keep.txt", b"older")
    screen.tap(text="Download")
    for name in ("report.txt", "keep.txt"):
        long_press(screen, name)
        screen.tap(desc="More options")
        screen.tap(text="Copy to…")
        screen.tap(desc="Navigate up")
        screen.tap(text="Documents")
        screen.tap(text="Copy", rid="android:id/button1")
    assert device.fs.read_bytes("/sdcard/Documents/report.txt") == b"quarterly"
    assert device.fs.read_bytes("/sdcard/Download/report.txt") == b"quarterly"
    assert device.fs.read_bytes("/sdcard/Documents/keep.txt") == b"older"
    assert screen.wm.toast == "Couldn't copy 1 file"


def test_a_folder_name_the_filesystem_refuses_is_refused_with_a_toast(tmp_path: Path) -> None:
    # One name holds 255 bytes; a longer one (or one holding NUL) crashed the app on the host's error.
    device, screen = files(tmp_path)
    screen.tap(text="Download")
    for name in ("é" * 128, "a\x00b", "a" * 255):
        screen.tap(desc="New folder")
        screen.wm.text(name)
        screen.tap(text="OK")
        shown = screen.xml()
        assert "keeps stopping" not in shown
        if name == "a" * 255:
            assert device.fs.exists(f"/sdcard/Download/{name}")
        else:
            assert "Can&apos;t create folder" in shown or "Can't create folder" in shown
            screen.tap(text="Cancel")
