"""Simple Draw Pro (com.simplemobiletools.draw.pro): a canvas and its "Save as" dialog.

A swipe over the canvas draws a stroke. Save opens the app's SaveImageDialog: the file name (first
"image_<date>_<time>"), the folder (first "Internal/Simple Draw"; a tap opens a folder picker) and the
type (PNG, SVG or JPG, as radio buttons). OK writes `<folder>/<name>.<type>` as a real image of the
strokes: a PNG or JPEG rendered by Pillow, or an SVG of one path per stroke.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from PIL import Image, ImageDraw

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.apps.folder_picker import folder_picker
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.ui.views import Column, DrawingPad, EditText, RadioButton, Row, Stack, Text, View
from mgfarm.sim.ui.widgets import action, app_bar, dialog

PKG = "com.simplemobiletools.draw.pro"
MAIN = f"{PKG}.activities.MainActivity"
STORAGE = "/storage/emulated/0"
DEFAULT_FOLDER = f"{STORAGE}/Simple Draw"
TYPES = ("png", "svg", "jpg")  # the dialog's radio buttons, in its order
IMAGE_SIZE = (1080, 1800)  # pixels of a saved drawing (the canvas of a 1080x2400 screen)
Stroke = tuple[float, float, float, float]


def humanize(path: str) -> str:
    """How the app shows a folder: internal storage as "Internal"."""
    return "Internal" + path.removeprefix(STORAGE)


def image_bytes(strokes: list[Stroke], kind: str) -> bytes:
    """The drawing as a file of `kind`: black strokes on white, as the app's default canvas."""
    w, h = IMAGE_SIZE
    if kind == "svg":
        paths = "".join(
            f'<path d="M{x1 * w:.1f},{y1 * h:.1f} L{x2 * w:.1f},{y2 * h:.1f}" stroke="#000000"'
            ' stroke-width="5" fill="none" stroke-linecap="round"/>'
            for x1, y1, x2, y2 in strokes
        )
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
            f'<rect width="{w}" height="{h}" fill="#ffffff"/>{paths}</svg>'
        )
        return svg.encode()
    image = Image.new("RGB", IMAGE_SIZE, (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for x1, y1, x2, y2 in strokes:
        draw.line((x1 * w, y1 * h, x2 * w, y2 * h), fill=(0, 0, 0), width=5)
    out = io.BytesIO()
    image.save(out, format="JPEG" if kind == "jpg" else "PNG")
    return out.getvalue()


class SimpleDraw(App):
    package = PKG
    label = "Simple Draw Pro"
    main_activity = MAIN
    icon = "edit"
    icon_color = "#F57C00"
    version_name = "7.0.0"

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    def main(self, ctx: ScreenContext) -> View:
        strokes: list[Stroke] = ctx.state.setdefault("strokes", [])
        undone: list[Stroke] = ctx.state.setdefault("undone", [])

        def add(x1: float, y1: float, x2: float, y2: float) -> None:
            strokes.append((x1, y1, x2, y2))
            undone.clear()

        def undo() -> None:
            if strokes:
                undone.append(strokes.pop())

        def redo() -> None:
            if undone:
                strokes.append(undone.pop())

        def clear() -> None:
            strokes.clear()
            undone.clear()

        bar = app_bar(
            "Simple Draw",
            actions=[
                action("arrow_back", "Undo", undo, id="menu_undo"),
                action("arrow_forward", "Redo", redo, id="menu_redo"),
                action("check", "Save", lambda: self.open_save(ctx), id="menu_save"),
                action("delete", "Clear", clear, id="menu_clear"),
            ],
        )
        pad = DrawingPad(id="my_canvas", weight=1, bg="#FFFFFF", strokes=tuple(strokes), on_stroke=add)
        screen = Column(children=[bar, pad])
        return Stack(bg="surface", children=[screen, *self.dialogs(ctx, strokes)])

    def open_save(self, ctx: ScreenContext) -> None:
        stamp = ctx.local_now()
        ctx.state["dialog"] = "save"
        ctx.state.setdefault("folder", DEFAULT_FOLDER)
        ctx.state.setdefault("type", "png")
        ctx.set_fields({"name": "image_" + stamp.strftime("%Y_%m_%d_%H_%M_%S")})
        ctx.focus("name")

    def dialogs(self, ctx: ScreenContext, strokes: list[Stroke]) -> list[View]:
        kind = ctx.state.get("dialog")
        if kind is None:
            return []

        def close() -> None:
            ctx.state.pop("dialog", None)

        if kind == "picker":
            ctx.on_back(lambda: ctx.state.update(dialog="save"))
            return [self.picker(ctx)]
        ctx.on_back(close)
        return [self.save_dialog(ctx, strokes, close)]

    def save_dialog(self, ctx: ScreenContext, strokes: list[Stroke], close: Callable[[], None]) -> View:
        folder = str(ctx.state["folder"])
        chosen = str(ctx.state["type"])

        def pick(kind: str) -> Callable[[], None]:
            return lambda: ctx.state.update(type=kind)

        def save() -> None:
            name = ctx.field("name").strip()
            if not name:
                ctx.toast("Filename cannot be empty")
                return
            if "/" in name or "\0" in name:
                ctx.toast("Filename contains invalid characters")
                return
            path = f"{folder.rstrip('/')}/{name}.{chosen}"
            try:
                self.device.fs.mkdir(folder, parents=True)
                self.device.fs.write_bytes(path, image_bytes(strokes, chosen))
            except (OSError, PathEscapeError):
                ctx.toast("Could not save the file")
                return
            ctx.toast("File saved successfully")
            close()

        def browse() -> None:
            ctx.state["dialog"] = "picker"
            ctx.state["browse"] = folder if self.device.fs.is_dir(folder) else STORAGE

        radios: list[View] = [
            RadioButton(
                id=f"save_image_radio_{kind}", text=kind.upper(), on=kind == chosen, on_click=pick(kind)
            )
            for kind in TYPES
        ]
        body: list[View] = [
            EditText(id="save_image_filename", key="name", hint="Filename", text=ctx.field("name")),
            Text(id="save_image_path_label", text="Path", size=12, color="on_surface_variant"),
            Text(id="save_image_path", text=humanize(folder), size=16, color="primary", on_click=browse),
            Row(id="save_image_radio_group", spacing=8, children=radios),
        ]
        return dialog("Save as", body, [("Cancel", close), ("OK", save)], close)

    def picker(self, ctx: ScreenContext) -> View:
        """The FilePickerDialog in folder mode: breadcrumbs, the folder's subfolders, OK picks it."""
        here = str(ctx.state["browse"])

        def back() -> None:
            ctx.state["dialog"] = "save"

        def choose() -> None:
            ctx.state["folder"] = here
            back()

        return folder_picker(ctx, self.device.fs, here, back, choose)
