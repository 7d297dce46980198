"""Camera (com.android.camera2), the AOSP camera of AndroidWorld's emulator image, over a synthetic scene.

The viewfinder shows a fixed outdoor scene (the emulator's cameras are virtual too). The shutter
("Shutter") takes a photo in Camera mode; in Video mode the first tap starts recording (the elapsed
time shows at the top) and the second stops it. A swipe right over the viewfinder opens the mode
list, whose items are described "Switch to Camera" and "Switch to Video" as the app's are.

Photos are `IMG_yyyyMMdd_HHmmss.jpg` (device time; `_1`, `_2` within one second) under
/sdcard/Pictures, videos `VID_yyyyMMdd_HHmmss.mp4` under /sdcard/Movies: the folders AndroidWorld's
CameraTakePhoto and CameraTakeVideo watch on its image. A photo is a real 480x640 JPEG of the scene
(Pillow). A video is a minimal valid MP4 container: `ftyp`, a `moov` holding only `mvhd` with the
recorded duration, and an empty `mdat` (no tracks, so players show a 0-frame clip). Each file gets
its media-store row with the columns the app sets (size, date taken, owner, width and height,
duration for a video).
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable

from PIL import Image, ImageDraw

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.system.clock import local_time
from mgfarm.sim.ui.views import Column, Icon, Picture, Row, Spacer, Stack, Text, View

PKG = "com.android.camera2"
LAUNCHER = "com.android.camera.CameraLauncher"  # the launcher's activity-alias of CameraActivity
STORAGE = "/storage/emulated/0"
PHOTOS = f"{STORAGE}/Pictures"
VIDEOS = f"{STORAGE}/Movies"
SIZE = (480, 640)  # pixels of a photo (4:3, portrait); the scene is drawn at this size
MEDIA = "content://media/external"


def scene() -> Image.Image:
    """The virtual camera's view, portrait 3:4: sky, sun, two hills, a house and a tree."""
    w, h = SIZE
    image = Image.new("RGB", SIZE)
    draw = ImageDraw.Draw(image)
    for y in range(h):  # the sky lightens towards the horizon
        shade = int(70 * y / h)
        draw.line((0, y, w, y), fill=(100 + shade, 165 + shade // 2, 230))
    draw.ellipse((330, 70, 410, 150), fill=(255, 221, 87))
    draw.ellipse((-200, 360, 330, 800), fill=(104, 159, 56))
    draw.ellipse((150, 400, 700, 860), fill=(85, 139, 47))
    draw.rectangle((70, 360, 190, 450), fill=(215, 204, 200))
    draw.polygon(((55, 365), (130, 300), (205, 365)), fill=(161, 64, 48))
    draw.rectangle((115, 400, 145, 450), fill=(93, 64, 55))
    draw.rectangle((330, 380, 346, 460), fill=(109, 76, 65))
    draw.ellipse((295, 300, 381, 395), fill=(46, 125, 50))
    return image


def encode(image: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    image.save(out, format=kind, quality=85) if kind == "JPEG" else image.save(out, format=kind)
    return out.getvalue()


def box(kind: bytes, payload: bytes) -> bytes:
    """One ISO BMFF box: 32-bit size, four-character type, payload."""
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4_bytes(duration_ms: int) -> bytes:
    """A minimal valid MP4: ftyp, moov with an mvhd (timescale 1000, the duration), an empty mdat."""
    ftyp = box(b"ftyp", b"isom" + struct.pack(">I", 0x200) + b"isomiso2mp41")
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    mvhd = box(
        b"mvhd",
        struct.pack(">I4I", 0, 0, 0, 1000, max(0, duration_ms))  # version+flags, times, scale, duration
        + struct.pack(">IH", 0x10000, 0x100)  # rate 1.0, volume 1.0
        + bytes(10)
        + matrix
        + bytes(24)
        + struct.pack(">I", 1),  # next track id
    )
    return ftyp + box(b"moov", mvhd) + box(b"mdat", b"")


def format_elapsed(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


class Camera(App):
    package = PKG
    label = "Camera"
    main_activity = LAUNCHER
    icon = "camera"
    icon_color = "#1A73E8"
    version_name = "2.0.002"

    def screens(self) -> dict[str, ScreenFn]:
        return {LAUNCHER: self.main}

    # ---- files
    def new_path(self, folder: str, prefix: str, ext: str, now_ms: int) -> str:
        """`PREFIX_yyyyMMdd_HHmmss.ext`, with `_1`, `_2` when a file of that second exists."""
        stamp = local_time(self.device.props, now_ms / 1000).strftime("%Y%m%d_%H%M%S")
        self.device.fs.mkdir(folder, parents=True)
        path, n = f"{folder}/{prefix}_{stamp}.{ext}", 0
        while self.device.fs.exists(path):
            n += 1
            path = f"{folder}/{prefix}_{stamp}_{n}.{ext}"
        return path

    def save(self, path: str, data: bytes, collection: str, values: dict[str, int | str]) -> None:
        """Write the file, then set the media-store columns the app fills on its row."""
        self.device.fs.write_bytes(path, data)
        media, _ = self.device.services.providers.resolve(MEDIA)
        media.update(f"{MEDIA}/{collection}", {"owner_package_name": PKG, **values}, "_data = ?", [path])
        self.device.changed()

    def take_photo(self, ctx: ScreenContext) -> None:
        now = ctx.now_ms()
        path = self.new_path(PHOTOS, "IMG", "jpg", now)
        w, h = SIZE
        self.save(path, encode(scene(), "JPEG"), "images/media", {"date_taken": now, "width": w, "height": h})
        ctx.state["last_photo"] = path

    def stop_video(self, ctx: ScreenContext) -> None:
        now = ctx.now_ms()
        started = int(ctx.state.pop("recording_since"))
        path = self.new_path(VIDEOS, "VID", "mp4", started)
        w, h = SIZE
        duration = max(0, now - started)
        values: dict[str, int | str] = {"date_taken": started, "width": w, "height": h, "duration": duration}
        self.save(path, mp4_bytes(duration), "video/media", values)

    # ---- screen
    def main(self, ctx: ScreenContext) -> View:
        ctx.edge_to_edge = True
        mode = str(ctx.state.setdefault("mode", "camera"))
        recording = "recording_since" in ctx.state
        drawer = bool(ctx.state.get("mode_list"))

        def shutter() -> None:
            if mode == "camera":
                self.take_photo(ctx)
            elif recording:
                self.stop_video(ctx)
            else:
                ctx.state["recording_since"] = ctx.now_ms()

        def swiped(direction: str) -> None:
            if direction == "right" and not recording:
                ctx.state["mode_list"] = True
            elif direction == "left":
                ctx.state.pop("mode_list", None)

        ctx.on_swipe(swiped)
        if drawer:
            ctx.on_back(lambda: ctx.state.pop("mode_list", None))
        elif recording:
            ctx.on_back(lambda: self.stop_video(ctx))
        # The scene is drawn in memory when shown (a PNG of it in the app's cache, written again
        # after every reset, cost ~1% of a worker's CPU at 16 replicas), shared by every device.
        preview = Picture(id="preview_content", pixels=scene, stamp="camera-scene", weight=1)
        layers: list[View] = [
            Column(children=[self.top_bar(ctx, recording), preview, self.bottom_bar(ctx, shutter)])
        ]
        if drawer:
            layers.append(self.mode_list(ctx, mode))
        return Stack(id="activity_root_view", bg="#000000", children=layers)

    def top_bar(self, ctx: ScreenContext, recording: bool) -> View:
        if not recording:
            return Spacer(height=80)
        elapsed = ctx.now_ms() - int(ctx.state["recording_since"])
        return Row(
            height=80,
            justify="center",
            pad=(0, 40, 0, 0),
            children=[Text(id="recording_time", text=format_elapsed(elapsed), size=18, color="#FFFFFF")],
        )

    def bottom_bar(self, ctx: ScreenContext, shutter: Callable[[], None]) -> View:
        mode = str(ctx.state["mode"])
        recording = "recording_since" in ctx.state
        last = str(ctx.state.get("last_photo", ""))
        thumb: View = Spacer(width=56, height=56)
        if last and self.device.fs.exists(last):
            host = self.device.fs.host(last)
            stamp = f"{host.stat().st_size}:{host.stat().st_mtime_ns}"
            thumb = Picture(
                id="rounded_thumbnail_view",
                desc="Photo taken",
                source=str(host),
                stamp=stamp,
                crop=True,
                width=56,
                height=56,
                radius=28,
            )
        video = mode == "video"
        button = Icon(
            id="shutter_button",
            desc="Shutter",
            name=("stop" if recording else "") if video else "camera",
            size=40,
            tint="#FFFFFF",
            circle="#D32F2F" if video else "#9E9E9E",
            width=80,
            height=80,
            on_click=shutter,
        )
        return Row(
            id="bottom_bar",
            bg="#202124",
            pad=(24, 24, 24, 64),
            justify="between",
            children=[thumb, button, Spacer(width=56, height=56)],
        )

    def mode_list(self, ctx: ScreenContext, mode: str) -> View:
        def pick(chosen: str) -> Callable[[], None]:
            return lambda: ctx.state.update(mode=chosen, mode_list=False)

        items = [
            ("camera", "Camera", "Switch to Camera", "camera"),
            ("video", "Video", "Switch to Video", "play"),
        ]
        rows: list[View] = [
            Row(
                id="selector_item",
                desc=desc,
                pad=(24, 16, 24, 16),
                spacing=24,
                selected=key == mode,
                on_click=pick(key),
                children=[
                    Icon(id="selector_icon", name=glyph, size=28, tint="#FFFFFF"),
                    Text(id="selector_text", text=text, size=18, color="#FFFFFF", medium=key == mode),
                ],
            )
            for key, text, desc, glyph in items
        ]
        # The list slides over the left part; a tap on the rest of the viewfinder closes it.
        panel = Column(
            id="mode_list_layout", width=280, bg="#263238", pad=(0, 96, 0, 0), blocks=True, children=rows
        )
        return Stack(children=[Spacer(on_click=lambda: ctx.state.update(mode_list=False)), panel])
