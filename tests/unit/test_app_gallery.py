"""Simple Gallery Pro lists the media store's folders and items, shows a picture's own pixels full
screen, and copies or moves items through its folder picker."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

from PIL import Image

from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import BOUNDS, Screen, boot_device, find

PKG = "com.simplemobiletools.gallery.pro"
ID = f"{PKG}:id/"
RED, BLUE = (220, 20, 20), (20, 20, 220)


def png(left: tuple[int, int, int], right: tuple[int, int, int]) -> bytes:
    """A 400x200 picture, its halves in two colours."""
    img = Image.new("RGB", (400, 200), left)
    img.paste(Image.new("RGB", (200, 200), right), (200, 0))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def gallery(tmp_path: Path) -> tuple[SimDevice, Screen]:
    device = boot_device(tmp_path)
    device.fs.mkdir("/sdcard/DCIM", parents=True)
    device.fs.mkdir("/sdcard/Download", parents=True)
    device.fs.write_bytes("/sdcard/DCIM/receipt.png", png(RED, BLUE))
    device.fs.write_bytes("/sdcard/DCIM/.hidden.png", png(BLUE, BLUE))
    screen = Screen(device)
    screen.am.launch(PKG)
    return device, screen


def test_folders_and_grid_list_the_media_and_the_viewer_shows_its_pixels(tmp_path: Path) -> None:
    _, screen = gallery(tmp_path)
    assert screen.has(rid=ID + "dir_name", text="DCIM")
    assert screen.has(rid=ID + "photo_cnt", text="1")  # the hidden file is left out
    screen.tap(rid=ID + "dir_name", text="DCIM")
    screen.tap(rid=ID + "medium_name", text="receipt.png")
    view = find(screen.xml(), rid=ID + "gestures_view", desc="receipt.png")
    m = BOUNDS.fullmatch(view.attrs["bounds"])
    assert m
    x0, y0, x1, y1 = (int(v) for v in m.groups())
    shot = Image.open(io.BytesIO(screen.wm.screencap_png())).convert("RGB")
    cy = (y0 + y1) // 2
    assert shot.getpixel((x0 + (x1 - x0) // 4, cy)) == RED
    assert shot.getpixel((x0 + 3 * (x1 - x0) // 4, cy)) == BLUE


def test_a_swipe_in_the_viewer_shows_the_next_item_of_the_folder(tmp_path: Path) -> None:
    device, screen = gallery(tmp_path)
    device.fs.write_bytes("/sdcard/DCIM/older.png", png(BLUE, RED))
    older = 1_600_000_000 * 10**9
    device.fs.utime("/sdcard/DCIM/older.png", older, older)  # the grid is newest first
    screen.tap(rid=ID + "dir_name", text="DCIM")
    screen.tap(rid=ID + "medium_name", text="receipt.png")
    screen.wm.swipe(900, 1200, 100, 1200)
    assert screen.has(rid=ID + "gestures_view", desc="older.png")
    screen.wm.swipe(900, 1200, 100, 1200)  # the last item stays
    assert screen.has(rid=ID + "gestures_view", desc="older.png")
    screen.wm.swipe(100, 1200, 900, 1200)
    assert screen.has(rid=ID + "gestures_view", desc="receipt.png")


def test_copy_to_writes_the_same_file_into_the_picked_folder(tmp_path: Path) -> None:
    device, screen = gallery(tmp_path)
    screen.tap(rid=ID + "dir_name", text="DCIM")
    screen.tap(rid=ID + "medium_name", text="receipt.png")
    screen.tap(desc="More options")
    screen.tap(text="Copy to")
    screen.tap(rid=ID + "dir_name", text="DCIM")  # the gallery's folders: the item's own is refused
    assert screen.wm.toast == "Source and destination cannot be the same"
    screen.tap(text="Other folder")
    screen.tap(text="OK")  # the folder picker opens on the item's own folder
    assert screen.wm.toast == "Source and destination cannot be the same"
    screen.tap(rid=ID + "breadcrumb_text", text="Internal >")
    screen.tap(rid=ID + "list_item_name", text="Download")
    screen.tap(text="OK")
    assert device.fs.read_bytes("/sdcard/Download/receipt.png") == device.fs.read_bytes(
        "/sdcard/DCIM/receipt.png"
    )


def test_move_to_from_a_selection_moves_the_file_into_a_gallery_folder(tmp_path: Path) -> None:
    device, screen = gallery(tmp_path)
    device.fs.mkdir("/sdcard/Pictures", parents=True)
    device.fs.write_bytes("/sdcard/Pictures/other.png", png(BLUE, RED))
    screen.tap(rid=ID + "dir_name", text="DCIM")
    x, y = find(screen.xml(), rid=ID + "medium_name", text="receipt.png").center
    screen.wm.long_press(x, y)
    assert screen.has(text="1 / 1")
    screen.tap(desc="More options")
    screen.tap(text="Move to")
    screen.tap(rid=ID + "dir_name", text="Pictures")
    assert sorted(device.fs.listdir("/sdcard/Pictures")) == ["other.png", "receipt.png"]
    assert not device.fs.exists("/sdcard/DCIM/receipt.png")
    assert screen.wm.toast == "Files moved successfully"


def test_copy_to_copies_a_large_file_in_pieces(tmp_path: Path) -> None:
    """Copy to read the whole file into the worker's memory; a video can be as large as the
    partition. A 40 MB file too large to draw is copied a piece at a time."""
    device, screen = gallery(tmp_path)
    big = png(RED, BLUE) + bytes(40 << 20)
    device.fs.write_bytes("/sdcard/DCIM/big.png", big)
    screen.tap(rid=ID + "dir_name", text="DCIM")
    x, y = find(screen.xml(), rid=ID + "medium_name", text="big.png").center
    screen.wm.long_press(x, y)
    screen.tap(desc="More options")
    screen.tap(text="Copy to")
    screen.tap(text="Other folder")
    screen.tap(rid=ID + "breadcrumb_text", text="Internal >")
    screen.tap(rid=ID + "list_item_name", text="Download")
    tracemalloc.start()
    try:
        screen.tap(text="OK")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert device.fs.read_bytes("/sdcard/Download/big.png") == big
    assert peak < 8 << 20  # 40 MB were read at once
