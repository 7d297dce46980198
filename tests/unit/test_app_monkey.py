"""Random input over every app, as an agent exploring would give it: taps (mostly on what is
clickable), long presses, swipes, typed text of any length and characters, keys. No app may crash
(an app's exception is a sim bug: it found Joplin's search failing on a long query) and every
screen must still draw and dump."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen, crashes, launchable, nodes

STEPS = 60
CHARACTERS = "ab c\n\t😀é'\"\\$%;&|<>{}()[]*?~`#=-_.,/:09"
KEYS = [4, 4, 66, 67, 61, 3, 187, 82, 122, 123]
# Crashes the real app has too: Broccoli searches with `LIKE '%' || query || '%'`, and SQLite
# refuses a pattern over 50,000 bytes on the phone as well.
AS_ON_A_PHONE = frozenset({"LIKE or GLOB pattern too complex"})


def act(screen: Screen, rng: random.Random) -> None:
    wm = screen.wm
    roll = rng.random()
    if roll < 0.5:
        targets = [n for n in nodes(screen.xml()) if n.attrs["clickable"] == "true"]
        anywhere = (rng.randrange(1080), rng.randrange(2400))
        x, y = rng.choice(targets).center if targets and rng.random() < 0.8 else anywhere
        (wm.tap if rng.random() < 0.85 else wm.long_press)(x, y)
    elif roll < 0.65:
        wm.swipe(rng.randrange(1080), rng.randrange(2400), rng.randrange(1080), rng.randrange(2400), 200)
    elif roll < 0.85:
        piece = "".join(rng.choice(CHARACTERS) for _ in range(rng.choice([1, 8, 60])))
        wm.text(piece * rng.choice([1, 1, 50, 1000]))
    else:
        wm.key(rng.choice(KEYS))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_input_crashes_no_app(tmp_path: Path, caplog: pytest.LogCaptureFixture, seed: int) -> None:
    sh = ShellDevice(tmp_path)
    try:
        screen = Screen(sh.device)
        rng = random.Random(seed)
        packages = launchable(screen)
        assert len(packages) >= 20
        with caplog.at_level(logging.ERROR):
            for package in packages:
                screen.am.launch(package)
                for _ in range(STEPS):
                    act(screen, rng)
                    assert screen.xml().startswith("<?xml")
                assert sh.run("screencap -p").out.startswith(b"\x89PNG")
                screen.wm.key(3)
        assert not crashes(caplog.records, AS_ON_A_PHONE)
    finally:
        sh.close()
