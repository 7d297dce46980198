"""AndroidWorld's SimpleDrawProCreateDrawing, unchanged, on a simulated device: it scores 0.0 untouched
and 1.0 after a solution that draws a stroke, opens Save, names the file, moves the folder from
"Internal/Simple Draw" to Pictures in the folder picker, picks the type and confirms; the file is
then a real PNG, SVG or JPEG in /storage/emulated/0/Pictures.
"""

from __future__ import annotations

import io
import os
from typing import Any

import pytest
from PIL import Image

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

APP = "simple draw pro"
ID = "com.simplemobiletools.draw.pro:id/"
PNG = b"\x89PNG\r\n\x1a\n"


def create_drawing(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    name, ext = os.path.splitext(raw["file_name"])
    dev.launch(APP)
    x, y = dev.center(rid=ID + "my_canvas")
    dev.phone.sh(f"input swipe {x - 200} {y - 100} {x + 200} {y + 150} 300")
    dev.phone.tap(desc="Save")
    field = dev.phone.node(rid=ID + "save_image_filename")
    dev.phone.tap(rid=ID + "save_image_filename")
    dev.phone.sh("input keyevent " + " ".join(["KEYCODE_DEL"] * len(field["text"])))
    dev.type_into(name, rid=ID + "save_image_filename")
    dev.phone.tap(rid=ID + "save_image_path")
    dev.phone.tap(text="Internal >")
    for _ in range(5):  # the picker lists the folders of internal storage, A to Z
        if dev.phone.has("Pictures"):
            break
        x, y = dev.center(rid=ID + "filepicker_list")
        dev.phone.sh(f"input swipe {x} {y + 100} {x} {y - 200} 400")
    dev.phone.tap(text="Pictures")
    dev.phone.tap(text="OK")  # the folder picker's
    dev.phone.tap(rid=ID + "save_image_radio_" + ext.removeprefix("."))
    dev.phone.tap(text="OK")  # the Save as dialog's


@pytest.mark.parametrize("seed", [1, 2])
def test_simpledraw_create_drawing(aw_device: AwDevice, seed: int) -> None:
    from android_world.task_evals.single import simple_draw_pro

    run_task(aw_device, simple_draw_pro.SimpleDrawProCreateDrawing, seed, create_drawing)


def test_saved_drawing_is_a_real_image(aw_device: AwDevice) -> None:
    """What the app writes opens as the image type the dialog named."""
    raw = {"file_name": "sketch_test.png"}
    create_drawing(aw_device, None, raw)
    png = aw_device.phone.d.sync.read_bytes("/storage/emulated/0/Pictures/sketch_test.png")
    assert png.startswith(PNG)
    with Image.open(io.BytesIO(png)) as image:
        assert image.getpixel((0, 0)) == (255, 255, 255)
        assert (0, 0, 0) in {c for _n, c in image.getcolors(1 << 16) or []}  # the stroke
    aw_device.phone.sh("rm /storage/emulated/0/Pictures/sketch_test.png")
