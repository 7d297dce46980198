"""Redrawing only the changed bands of the screen gives the pixels a full render draws."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mgfarm.sim.device import SimDevice
from mgfarm.sim.system.windows import KEY_BACK, KEY_HOME
from mgfarm.sim.ui import redraw, xmldump
from mgfarm.sim.ui.render import render
from mgfarm.sim.ui.views import Stack
from tests.unit.sim_screen import boot_device, nodes

APPS = (
    "com.google.android.dialer",
    "com.android.settings",
    "com.google.android.contacts",
    "com.simplemobiletools.calendar.pro",
    "com.android.launcher3",
)


def check(device: SimDevice) -> None:
    """The frame as `render_frame` gives it (over the last one) equals a full render of it."""
    wm = device.services.window
    frame = wm.frame()
    roots = frame.draw_roots()
    over_last = redraw.render_frame(roots, frame.lctx, frame.palette).tobytes()
    assert over_last == render(roots, frame.lctx, frame.palette).tobytes()


def act(device: SimDevice, rng: random.Random) -> None:
    """A random user action: mostly taps on clickable views, some typing, scrolling and back."""
    wm = device.services.window
    roll = rng.random()
    if roll < 0.06:
        wm.key(KEY_BACK)
    elif roll < 0.12:
        w, h = wm.display_size
        y = rng.randrange(h // 4, 3 * h // 4)
        wm.swipe(w // 2, y, w // 2, y + rng.choice((-1, 1)) * h // 5, 300)
    elif roll < 0.2 and wm.keyboard_shown():
        wm.text(rng.choice(("a", "7", "Hi there", "x")))
    else:
        targets = [n for n in nodes(wm.dump_xml()) if n.attrs.get("clickable") == "true"]
        if targets:
            wm.tap(*rng.choice(targets).center)


@pytest.fixture
def full(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per frame `render_frame` drew whole, from a redraw state with no frame kept."""
    drawn: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        drawn.append(1)
        return render(*args, **kwargs)

    monkeypatch.setattr(redraw, "render", counted)
    redraw.forget()
    return drawn


@pytest.mark.parametrize("package", APPS)
def test_redrawn_frames_equal_full_renders(tmp_path: Path, package: str, full: list[int]) -> None:
    device = boot_device(tmp_path)
    device.services.activities.launch(package)
    device.changed()
    rng = random.Random(package)
    steps = 40
    for _ in range(steps):
        check(device)
        act(device, rng)
        if device.services.activities.resumed_record() is None:
            device.services.window.key(KEY_HOME)
    # Most steps change a few views: only some frames were drawn whole.
    assert len(full) < steps


def test_dial_pad_digits_redraw_a_band(tmp_path: Path, full: list[int]) -> None:
    device = boot_device(tmp_path)
    wm = device.services.window
    device.services.activities.launch("com.google.android.dialer")
    device.changed()
    fab = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith("dialpad_fab"))
    wm.tap(*fab.center)
    check(device)
    check(device)  # the same frame again: nothing drawn
    drawn = len(full)
    for digit in "5550123":
        key = next(n for n in nodes(wm.dump_xml()) if n.attrs["resource-id"].endswith(f"dialpad_key_{digit}"))
        wm.tap(*key.center)
        check(device)
    assert len(full) <= drawn + 1  # the number field joins the tree once; later digits redraw a band


def test_hierarchies_from_earlier_frames_tags_equal_fresh_ones(tmp_path: Path) -> None:
    """The dump's opening tags reused by view key (from any earlier frame: the views that did not
    change, alike views of other screens) give the XML written from scratch, under random actions."""
    device = boot_device(tmp_path)
    wm = device.services.window
    for package in APPS:
        device.services.activities.launch(package)
        device.changed()
        rng = random.Random(package)
        for _ in range(15):
            frame = wm.frame()
            wm.frame_digest()  # the frame's view keys, as every screenshot and dump makes them
            windows = [(frame.app_root, frame.package), (frame.status, "com.android.systemui")]
            reused = xmldump.dump(windows, wm.rotation, wm._keys_by_view(frame))
            assert reused == xmldump.dump(windows, wm.rotation)
            act(device, rng)
            if device.services.activities.resumed_record() is None:
                wm.key(KEY_HOME)


def test_a_handler_set_or_not_tells_two_views_apart() -> None:
    """Keys leave out attributes at their default, but a handler being set shows (clickable)."""
    dumps = []
    for handler in (None, lambda: None, None):
        view = Stack(text="Row", on_click=handler)
        view.bounds = view.clip = (0, 0, 100, 40)
        keys = redraw.view_keys([view])
        dumps.append(xmldump.dump([(view, "pkg")], 0, {id(view): keys[0]}))
    assert 'clickable="false"' in dumps[0] and 'clickable="true"' in dumps[1]
    assert dumps[2] == dumps[0]


def test_kept_tags_stay_within_their_character_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes holding long texts (a note's body) must not grow the worker's tag cache without bound;
    tags written after a clear are still the same XML."""
    monkeypatch.setattr(xmldump, "TAGS_CHARS", 50_000)
    monkeypatch.setattr(xmldump, "_TAGS", {})
    monkeypatch.setattr(xmldump, "_tags_chars", 0)
    for n in range(100):
        view = Stack(text=f"note {n} " + "a long line of a note's body " * 40)
        view.bounds = view.clip = (0, 0, 100, 40)
        keys = redraw.view_keys([view])
        assert xmldump.dump([(view, "pkg")], 0, {id(view): keys[0]}) == xmldump.dump([(view, "pkg")], 0)
        kept = sum(len(known[1]) + len(tag) for known, tag in xmldump._TAGS.items())
        assert kept == xmldump._tags_chars <= 50_000
