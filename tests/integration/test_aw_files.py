"""AndroidWorld's FilesDeleteFile and FilesMoveFile, unchanged, on a simulated device with the default
profile (Google's Files, com.google.android.documentsui): AndroidWorld writes the file and its noise
into a folder of /storage/emulated/0 and judges by listing the folders; the solutions open the folder
in Files and long-press the file, then delete it, or move it as Android 13's DocumentsUI does (More
options, Move to…, up to the storage root in the picker, the destination folder, Move).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]


def find_row(dev: AwDevice, name: str) -> None:
    """Scroll the list until a row named `name` is on screen (the folder may hold many noise files)."""
    for _ in range(12):
        if dev.phone.has(name):
            return
        dev.scroll_down()
    raise AssertionError(f"{name} is not in the list")


def delete_file(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch("files")
    find_row(dev, raw["subfolder"])
    dev.phone.tap(text=raw["subfolder"])
    find_row(dev, raw["file_name"])
    dev.long_press(text=raw["file_name"])
    dev.phone.tap(desc="Delete")
    dev.phone.tap(text="Delete")


def move_file(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    dev.launch("files")
    find_row(dev, raw["source_folder"])
    dev.phone.tap(text=raw["source_folder"])
    find_row(dev, raw["file_name"])
    dev.long_press(text=raw["file_name"])
    dev.phone.tap(desc="More options")
    dev.phone.tap(text="Move to…")
    dev.phone.tap(desc="Navigate up")  # the picker opens in the file's own folder
    find_row(dev, raw["destination_folder"])
    dev.phone.tap(text=raw["destination_folder"])
    dev.phone.tap(text="Move")


TASKS = [("FilesDeleteFile", delete_file), ("FilesMoveFile", move_file)]


@pytest.mark.parametrize("seed", [1, 2])
def test_files_move_file(aw_device: AwDevice, seed: int) -> None:
    from android_world.task_evals.single import files

    run_task(aw_device, files.FilesMoveFile, seed, move_file)


@pytest.mark.parametrize("seed", [1, 2])
def test_files_delete_file(aw_device: AwDevice, seed: int) -> None:
    from android_world.task_evals.single import files

    run_task(aw_device, files.FilesDeleteFile, seed, delete_file)
