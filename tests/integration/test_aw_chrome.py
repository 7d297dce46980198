"""AndroidWorld's browser tasks (BrowserMultiply, BrowserMaze, BrowserDraw), unchanged, on a simulated
device: each initialises, scores 0.0 untouched and 1.0 after a solution that only reads the screen
(`uiautomator dump`, `screencap`) and taps, types and swipes.

Each solution opens Downloads/task.html in the Files app, which sends it to Chrome; the sim's Chrome
renders it with the host's headless Chromium. BrowserMultiply reads the five numbers from the dump.
BrowserMaze finds the walls and the goal in the screenshot (the cells have no text: black is a wall,
green the goal) from the X's cell, and walks there with the Up/Down/Left/Right buttons. BrowserDraw
reads the three task colours from the top of the screenshot, picks each in the palette (unlabelled
buttons, matched by their pixels) and swipes over the canvas. Without Chromium on the host these
tests skip, saying so.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections import deque
from typing import Any

import pytest
from PIL import Image

from mgfarm.sim.system.chromium import binary
from tests.integration.aw_apps import BOUNDS, AwDevice, aw_device, run_task
from tests.support import processes_matching

__all__ = ["aw_device"]

pytestmark = pytest.mark.skipif(
    binary() is None, reason="no Chromium on this host (apt-get install chromium): the sim's Chrome needs it"
)
DP = 420 / 160  # the sim's default density


def browser_task(name: str) -> type:
    from android_world.task_evals.single import browser

    cls: type = getattr(browser, name)
    return cls


def nodes(dev: AwDevice) -> list[dict[str, Any]]:
    """Every node of the dump with its bounds as a tuple."""
    out = []
    for el in ET.fromstring(dev.phone.dump()).iter("node"):
        m = BOUNDS.fullmatch(el.attrib["bounds"])
        assert m
        out.append({**el.attrib, "box": tuple(int(v) for v in m.groups())})
    return out


def screen(dev: AwDevice) -> Image.Image:
    return Image.open(io.BytesIO(bytes(dev.phone.d.shell("screencap -p", encoding=None)))).convert("RGB")


def center(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def open_task_page(dev: AwDevice) -> None:
    """Downloads/task.html from the Files app, which opens it in Chrome."""
    dev.launch("files")
    dev.phone.tap(text="Download")
    dev.phone.tap(text="task.html")
    assert "com.android.chrome" in dev.phone.sh("dumpsys window | grep mCurrentFocus")


def multiply(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_task_page(dev)
    numbers = []
    for _ in range(5):
        shown = [n["text"] for n in nodes(dev) if re.fullmatch(r"\d+", n["text"])]
        assert len(shown) == 1, [n["text"] for n in nodes(dev) if n["text"]]
        numbers.append(int(shown[0]))
        dev.phone.tap(text="Click Me")
    product = 1
    for n in numbers:
        product *= n
    dev.type_into(str(product), text="Enter the product")
    dev.phone.tap(text="Submit")


def maze(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_task_page(dev)
    x_cell = next(n["box"] for n in nodes(dev) if n["text"] == "X")
    cx, cy = center(x_cell)
    step = round(112 * DP)  # a cell: 110 CSS px and its 1 px borders
    pixels = screen(dev)
    walls, goal = set(), (3, 3)
    for r in range(4):
        for c in range(4):
            red, green, blue = pixels.getpixel((min(cx + c * step, 1079), cy + r * step))  # type: ignore[misc]
            if red < 40 and green < 40 and blue < 40:
                walls.add((r, c))
            elif green > 100 and red < 60 and blue < 60:
                goal = (r, c)
    moves = {"Up": (-1, 0), "Down": (1, 0), "Left": (0, -1), "Right": (0, 1)}
    came: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {(0, 0): None}
    todo = deque([(0, 0)])
    while todo:
        cell = todo.popleft()
        for name, (dr, dc) in moves.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < 4 and 0 <= nxt[1] < 4 and nxt not in walls and nxt not in came:
                came[nxt] = (cell, name)
                todo.append(nxt)
    assert goal in came, (walls, goal)
    path: list[str] = []
    at = goal
    while (link := came[at]) is not None:
        at, name = link
        path.insert(0, name)
    for name in path:
        dev.phone.tap(text=name)


def draw(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    open_task_page(dev)
    found = nodes(dev)
    canvas = next(n["box"] for n in found if n["class"] == "android.view.View" and n["clickable"] == "true")
    palette = [n["box"] for n in found if n["class"] == "android.widget.Button" and not n["text"]]
    pixels = screen(dev)
    # The three task colours: 50 CSS px squares in a row above the canvas.
    y = canvas[1] - round(33 * DP)
    wanted: list[tuple[int, int, int]] = []
    run_start = 0
    row = [pixels.getpixel((x, y)) for x in range(pixels.width)] + [(255, 255, 255)]
    for x in range(1, len(row)):
        if row[x] != row[run_start]:  # a run of one colour ends: a square is 50 CSS px wide
            if row[run_start] != (255, 255, 255) and x - run_start > 20 * DP:
                wanted.append(row[run_start])  # type: ignore[arg-type]
            run_start = x
    assert len(wanted) == 3, wanted
    x0, y0, x1, y1 = canvas
    for i, colour in enumerate(wanted):
        button = min(
            palette,
            key=lambda b: sum(abs(p - q) for p, q in zip(pixels.getpixel(center(b)), colour, strict=True)),  # type: ignore[arg-type]
        )
        bx, by = center(button)
        dev.phone.sh(f"input tap {bx} {by}")
        line = y0 + (i + 1) * (y1 - y0) // 4
        # A 1 px line half-covers two rows; the page reads colours without alpha but premultiplied
        # pixels round mid-tones (#800000) until strokes over the same line make them opaque.
        for _ in range(10):
            dev.phone.sh(f"input swipe {x0 + 30} {line} {x1 - 30} {line} 100")
    dev.phone.tap(text="Submit")
    dev.phone.save_screen("chrome_browser_draw")


TASKS = [("BrowserMultiply", multiply), ("BrowserMaze", maze), ("BrowserDraw", draw)]
CASES = [(name, solve, seed) for name, solve in TASKS for seed in (1, 2)]


@pytest.mark.parametrize(("name", "solve", "seed"), CASES, ids=[f"{n}-{s}" for n, _, s in CASES])
def test_browser_task(aw_device: AwDevice, name: str, solve: Any, seed: int) -> None:
    run_task(aw_device, browser_task(name), seed, solve)


def browsers() -> list[int]:
    """Pids of the host's Chromium processes driven over a DevTools pipe (the sim's Chrome starts them)."""
    return processes_matching(
        lambda cmdline: b"--remote-debugging-pipe" in cmdline and b"/chrome-" in cmdline
    )


def test_force_stop_ends_the_browser(aw_device: AwDevice) -> None:
    """Chromium starts with the first page and goes with the app."""
    phone = aw_device.phone
    phone.sh("mkdir -p /sdcard/Download")
    phone.sh("echo '<html><body><p>Hello page</p></body></html>' > /sdcard/Download/hello.html")
    aw_device.launch("files")
    phone.tap(text="Download")
    phone.tap(text="hello.html")
    assert phone.has("Hello page")
    phone.save_screen("chrome_hello_page")
    assert browsers(), "no Chromium runs for the page"
    phone.sh("am force-stop com.android.chrome")
    assert "com.android.chrome" not in phone.sh("dumpsys window | grep mCurrentFocus")
    assert not browsers(), "Chromium outlived the app"
    phone.sh("rm /sdcard/Download/hello.html")
