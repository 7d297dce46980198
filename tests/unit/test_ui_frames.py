"""Kept frames: reads share one composition, every way of writing shows at once, devices share screens."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.console import Console
from mgfarm.sim.shell.effects import READ_ONLY, screen_neutral
from mgfarm.sim.shell.registry import COMMANDS
from mgfarm.sim.system.settings import SettingsStore
from mgfarm.sim.system.windows import WindowManager
from mgfarm.sim.ui.framecache import FrameCache
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import nodes

READS = [
    "screencap -p",
    "uiautomator dump /data/local/tmp/u.xml >/dev/null && cat /data/local/tmp/u.xml",
    "dumpsys window windows",
    "settings get secure ui_night_mode",
    "content query --uri content://settings/secure",
    "getprop ro.product.model",
    "pm list packages",
]


def count_builds(monkeypatch: pytest.MonkeyPatch, wm: WindowManager) -> list[int]:
    calls = [0]
    build = wm.build

    def counted() -> object:
        calls[0] += 1
        return build()

    monkeypatch.setattr(wm, "build", counted)
    return calls


def test_reads_share_one_composition(sh: ShellDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    sh.device.services.clock.freeze(True)  # the clock's second is part of what a frame depends on
    sh.run("screencap -p")
    builds = count_builds(monkeypatch, sh.device.services.window)
    for line in READS:
        assert sh.run(line).status == 0, line
    assert builds[0] == 0


@pytest.mark.parametrize(
    "write",
    [
        "settings put secure ui_night_mode 2",
        "am start -n com.android.settings/.Settings",
        "input keyevent 3",
        "echo note > /sdcard/Download/new.txt",
        "sqlite3 /data/data/com.android.providers.settings/databases/settings.db "
        "\"UPDATE secure SET value='2' WHERE name='ui_night_mode'\"",
    ],
)
def test_every_write_composes_anew(sh: ShellDevice, monkeypatch: pytest.MonkeyPatch, write: str) -> None:
    sh.device.services.clock.freeze(True)
    sh.run("screencap -p")
    builds = count_builds(monkeypatch, sh.device.services.window)
    assert sh.run(write).status == 0, sh.run(write).error
    sh.run("screencap -p")
    assert builds[0] == 1


def test_a_change_behind_the_ui_shows_on_the_next_screenshot(sh: ShellDevice) -> None:
    sh.run("am start -n com.android.settings/.Settings")
    light = sh.run("screencap -p").out
    sh.run("settings put secure ui_night_mode 2")
    assert sh.run("screencap -p").out != light


def test_a_running_clock_recomposes_each_second(sh: ShellDevice) -> None:
    clock = sh.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772641800000)  # 16:30:00 UTC
    before = sh.run("screencap -p").out
    clock.set_ms(1772641800000 + 60_000)
    assert sh.run("screencap -p").out != before  # the status bar clock moved on


def test_a_screen_without_seconds_keeps_its_composition_within_the_minute(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a farm an env's steps are often more than a second apart: the next input must not have
    # to compose the screen again because the second moved on, when nothing on it shows seconds.
    clock = sh.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772641800000)  # 16:30:00 UTC
    sh.run("am start -n com.android.settings/.Settings")
    sh.run("screencap -p")
    builds = count_builds(monkeypatch, sh.device.services.window)
    clock.set_ms(1772641800000 + 59_000)
    sh.run("screencap -p")
    assert builds[0] == 0
    clock.set_ms(1772641800000 + 60_000)
    sh.run("screencap -p")
    assert builds[0] == 1


def test_a_stopwatch_recomposes_each_second(sh: ShellDevice) -> None:
    clock = sh.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772641800000)
    wm = sh.device.services.window
    sh.run("am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    for desc in ("Stopwatch", "Start"):
        node = next(n for n in nodes(wm.dump_xml()) if n.attrs["content-desc"] == desc)
        wm.tap(*node.center)
    shown = [n.attrs["text"] for n in nodes(wm.dump_xml()) if n.attrs["text"].startswith("00:00:0")]
    clock.set_ms(1772641800000 + 1_000)
    later = [n.attrs["text"] for n in nodes(wm.dump_xml()) if n.attrs["text"].startswith("00:00:0")]
    assert shown == ["00:00:00"] and later == ["00:00:01"]


def test_an_input_that_does_nothing_keeps_the_composition(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tap where no control is, or a scroll past a list's end, changes nothing: the next
    # screenshot must not compose the screen again (on a farm a third of the bench's steps).
    sh.device.services.clock.freeze(True)
    sh.run("am start -n com.android.settings/.Settings")
    for _ in range(30):  # to the end of the list
        sh.run("input swipe 540 1800 540 600 300")
    sh.run("screencap -p")
    builds = count_builds(monkeypatch, sh.device.services.window)
    epoch = sh.device.epoch
    assert sh.run("input swipe 540 1800 540 600 300").status == 0
    assert sh.run("input tap 540 30").status == 0  # the status bar
    sh.run("screencap -p")
    assert (builds[0], sh.device.epoch) == (0, epoch)
    sh.run("input swipe 540 800 540 1600 300")  # back up: the list moves
    sh.run("screencap -p")
    assert builds[0] == 1 and sh.device.epoch > epoch


def test_console_probes_keep_the_composition_and_commands_compose_anew(sh: ShellDevice) -> None:
    # The watchdog's health pass (`ping` on each device's console) must not make every device
    # compose its screen again; a console command that changes state must.
    console = Console(sh.device, "127.0.0.1", 0, token="t0ken")

    async def session(lines: list[str]) -> int:
        await console.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", console.port)
        before = sh.device.epoch
        for line in lines:
            writer.write(f"{line}\n".encode())
            await writer.drain()
        writer.write(b"quit\n")
        await reader.read()  # the console closes the session after `quit`
        writer.close()
        await console.stop()
        return sh.device.epoch - before

    probes = ["auth t0ken", "ping", "avd name", "avd status", "avd snapshot list", "help"]
    assert sh.loop.run_until_complete(session(probes)) == 0
    assert sh.loop.run_until_complete(session(["auth t0ken", "geo fix 2.35 48.85"])) == 1


def test_read_only_commands_are_registered_commands() -> None:
    assert set(COMMANDS) >= READ_ONLY, READ_ONLY - set(COMMANDS)


@pytest.mark.parametrize(
    ("argv", "neutral"),
    [
        (["screencap", "-p"], True),
        (["screencap", "-p", "/sdcard/shot.png"], False),
        (["uiautomator", "dump", "/data/local/tmp/x.xml"], True),
        (["uiautomator", "dump"], False),  # writes /sdcard/window_dump.xml, which Files shows
        (["uiautomator", "dump", "/sdcard/x.xml"], False),
        (["settings", "--user", "0", "get", "secure", "x"], True),
        (["settings", "put", "secure", "x", "1"], False),
        (["content", "query", "--uri", "content://settings/secure"], True),
        (["content", "insert", "--uri", "content://settings/secure"], False),
        (["pm", "list", "packages"], True),
        (["pm", "clear", "com.google.android.contacts"], False),
        (["input", "tap", "1", "1"], False),
        (["rm", "/sdcard/x"], False),
        (["sort", "-n", "/sdcard/x"], True),
        (["sort", "-o", "/sdcard/y", "/sdcard/x"], False),  # writes a file Files may show
        (["uniq", "/sdcard/x"], True),
        (["uniq", "/sdcard/x", "/sdcard/y"], False),
    ],
)
def test_screen_neutral(argv: list[str], neutral: bool) -> None:
    assert screen_neutral(argv) is neutral


def test_devices_in_the_same_state_share_a_screenshot(tmp_path: Path) -> None:
    a, b = ShellDevice(tmp_path / "a"), ShellDevice(tmp_path / "b")
    for d in (a, b):
        d.device.services.clock.freeze(True)
        d.device.services.clock.set_ms(1772641800000)
        d.run("am start -n com.android.settings/.Settings")
    shot_a = a.device.services.window.screencap_png()
    assert b.device.services.window.screencap_png() is shot_a  # encoded once for both
    a.close()
    b.close()


def test_frame_cache_drops_least_recently_used_over_budget() -> None:
    cache = FrameCache(budget=250)
    first = cache.screen("first")
    cache.fill(first, png=b"x" * 100)
    second = cache.screen("second")
    cache.fill(second, png=b"y" * 100)
    assert cache.screen("first") is first  # used again: now the most recent
    third = cache.screen("third")
    cache.fill(third, png=b"z" * 100)
    assert cache.screen("first") is first
    assert cache.screen("second") is not second  # dropped
    assert cache.misses == 4 and cache.hits == 2


def test_frame_cache_with_no_budget_shares_nothing() -> None:
    cache = FrameCache(budget=0)
    assert cache.screen("same") is not cache.screen("same")


def test_settings_reads_follow_writes_from_other_connections(tmp_path: Path) -> None:
    writes: list[int] = []
    store = SettingsStore(tmp_path / "settings.db", on_write=lambda: writes.append(1))
    store.create()
    assert store.get("system", "time_12_24") == "12"
    with sqlite3.connect(tmp_path / "settings.db") as conn:  # as `sqlite3` or a provider would
        conn.execute("UPDATE system SET value = '24' WHERE name = 'time_12_24'")
    assert store.get("system", "time_12_24") == "24"
    store.put("system", "time_12_24", "12")
    assert store.get("system", "time_12_24") == "12"
    assert writes == [1]


# What agents, task setups and verifiers send, reads and writes mixed.
TRAFFIC = [
    *READS,
    "input tap 540 1200",
    "input tap 200 700",
    "input swipe 540 1800 540 600 300",
    "input swipe 540 10 540 900 300",
    "input keyevent 4",
    "input keyevent 3",
    "input text hello",
    "input keyevent 66",
    "am start -n com.android.settings/.Settings",
    "am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity",
    "monkey -p com.google.android.deskclock 1",
    "settings put secure ui_night_mode 2",
    "settings put system time_12_24 24",
    "settings put global airplane_mode_on 1",
    "content insert --uri content://settings/secure --bind name:s:ui_night_mode --bind value:s:2",
    "sqlite3 /data/data/com.android.providers.settings/databases/settings.db "
    "\"UPDATE global SET value='1' WHERE name='airplane_mode_on'\"",
    "content insert --uri content://com.android.contacts/raw_contacts --bind starred:i:1",
    "content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:1 "
    "--bind mimetype:s:vnd.android.cursor.item/name --bind data1:s:Zed",
    "echo note > /sdcard/Download/n.txt",
    "rm -f /sdcard/Download/n.txt",
    "am force-stop com.android.settings",
    "pm clear com.google.android.contacts",
]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(TRAFFIC), min_size=1, max_size=10))
def test_a_kept_frame_always_equals_a_fresh_composition(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    sh = ShellDevice(tmp_path_factory.mktemp("dev"))
    sh.device.services.clock.freeze(True)
    wm = sh.device.services.window
    try:
        for line in lines:
            sh.run(line)
            kept = (wm.dump_xml(all_windows=True), wm.screencap_png())
            sh.device.changed()  # forces a composition from the current state
            assert (wm.dump_xml(all_windows=True), wm.screencap_png()) == kept, f"stale after {line!r}"
    finally:
        sh.close()


@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcdefgh"), st.sampled_from(["png", "xml", "xml_all"]), st.integers(0, 120)
        ),
        max_size=60,
    ),
    st.integers(0, 400),
)
def test_frame_cache_running_total_is_what_it_keeps(fills: list[tuple[str, str, int]], budget: int) -> None:
    cache = FrameCache(budget=budget)
    for signature, field, size in fills:
        screen = cache.screen(signature)
        cache.fill(screen, **{field: b"p" * size if field == "png" else "x" * size})  # type: ignore[arg-type]
        kept = list(cache._screens.values())
        assert cache.total == sum(s.size for s in kept)
        assert cache.total <= budget or len(kept) == 1
