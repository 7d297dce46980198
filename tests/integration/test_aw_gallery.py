"""AndroidWorld's Simple Gallery Pro tasks, unchanged, on a simulated device: each initialises (the
receipt, expenses or recipes picture pushed into /sdcard/DCIM), scores 0.0 untouched and 1.0 after
a solution that acts only through the screens.

The pictures' text is drawn into their pixels, which no `uiautomator dump` shows (nor does it on a
real device): the solutions open the picture full screen in the gallery, where a model would read
it, and take the values it would read from the task's parameters. Everything they do is done
through the UI: the gallery's folders, grid, viewer and its "Copy to" destination and folder
pickers, then Pro Expense, Broccoli or Markor to enter what the picture says.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration import test_aw_broccoli, test_aw_expense, test_aw_markor
from tests.integration.aw_apps import AwDevice, aw_device, run_task
from tests.integration.test_aw_markor import World

__all__ = ["aw_device"]

APP = "simple gallery pro"
ID = "com.simplemobiletools.gallery.pro:id/"
FOLDER = "DCIM"  # AndroidWorld's GALLERY_DATA, /sdcard/DCIM


def find_text(dev: AwDevice, rid: str, text: str) -> None:
    """Scroll the grid until an item with `text` in view `rid` is on screen."""
    for _ in range(12):
        if text in dev.texts(ID + rid):
            return
        dev.scroll_down()
    raise AssertionError(f"{text} is not in the grid")


def view_picture(dev: AwDevice, name: str) -> None:
    """Open the gallery, the DCIM folder and the picture full screen (where a model reads it)."""
    dev.launch(APP)
    find_text(dev, "dir_name", FOLDER)
    dev.phone.tap(text=FOLDER, rid=ID + "dir_name")
    find_text(dev, "medium_name", name)
    dev.phone.tap(text=name, rid=ID + "medium_name")
    shown = [
        el.attrib["content-desc"]
        for el in ET.fromstring(dev.phone.dump()).iter("node")
        if el.attrib["resource-id"] == ID + "gestures_view"
    ]
    assert shown == [name], shown


# ---- solutions
def save_copy_of_receipt(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """View the receipt, then More options, Copy to: Download holds no media, so it is not among the
    gallery's folders; Other folder opens the folder picker, where Internal > Download is picked."""
    view_picture(dev, raw["file_name"])
    dev.phone.tap(desc="More options")
    dev.phone.tap(text="Copy to")
    dev.phone.tap(text="Other folder")
    dev.phone.tap(text="Internal >", rid=ID + "breadcrumb_text")
    dev.phone.tap(text="Download", rid=ID + "list_item_name")
    dev.phone.tap(text="OK")


def expenses_from_gallery(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """View expenses.jpg, then log each expense it lists in Pro Expense (the values a model reads
    from the picture are the task's rows)."""
    view_picture(dev, "expenses.jpg")
    test_aw_expense.add_expenses(dev, task, raw)


def recipes_from_image(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """View recipes.jpg, then type each recipe it lists into Broccoli (values as a model reads them)."""
    view_picture(dev, "recipes.jpg")
    test_aw_broccoli.add_recipes(dev, task, raw)


def transcribe_receipt(w: World, p: dict[str, Any]) -> None:
    """View receipt.png, then write its rows (as a model reads them) as receipt.md through Markor."""
    view_picture(w.device, "receipt.png")
    test_aw_markor.transcribe_receipt(w, p)


TASKS = [
    ("SaveCopyOfReceiptTaskEval", save_copy_of_receipt),
    ("ExpenseAddMultipleFromGallery", expenses_from_gallery),
    ("RecipeAddMultipleRecipesFromImage", recipes_from_image),
]
# Markor's solutions act through uiautomator2 (test_aw_markor.World).
UI_SOLUTIONS = {"MarkorTranscribeReceipt": transcribe_receipt}


def task_class(name: str) -> type:
    from android_world import registry

    cls: type = registry.TaskRegistry().get_registry(registry.TaskRegistry.ANDROID_WORLD_FAMILY)[name]
    return cls


@pytest.fixture(scope="module")
def w(aw_device: AwDevice) -> Iterator[World]:
    yield from test_aw_markor.with_ui(aw_device)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "solve"), TASKS, ids=[n for n, _ in TASKS])
def test_gallery_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, task_class(name), seed, solve)


@pytest.mark.parametrize("seed", [1, 2])
def test_transcribe_receipt(w: World, seed: int) -> None:
    test_aw_markor.check_task(w, task_class("MarkorTranscribeReceipt"), seed, transcribe_receipt)
