"""An action's input commands and the observation after it in one shell command line.

`Device.input_and_observe` on a device that shares frames sends `{ INPUTS; } >&2; echo $?;
mgfarm-frame ...` as one round trip. Here its wire runs the lines in an in-process simulated
device's shell (stdout and stderr apart, as `shell,v2` keeps them), so the test sees every line the
client sends and what a real round trip would answer. The inputs' output and status never pass for
the frame reply, a reply that is not whole is one DeviceError, and a round trip that breaks is the
action's failure (InputFailed), as a `shell` of the input would have raised DeviceError.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.adb.errors import AdbError
from mgfarm.device import framebuffer
from mgfarm.device.actions import ActionExecutor
from mgfarm.device.device import (
    Device,
    DeviceError,
    InputFailed,
    _Shown,
    decode_png_rgb,
    key_command,
    q,
    tap_command,
)
from mgfarm.device.ui import UIElement, parse_hierarchy
from mgfarm.sim.framebuffer import FrameBuffer
from tests.unit.shellkit import ShellDevice

Tamper = Callable[[str, bytes], bytes]


class SimWire:
    """`ShellClient`'s calls, run in a `ShellDevice`'s shell; records each line, may alter replies."""

    def __init__(self, shell: ShellDevice) -> None:
        self.shell = shell
        self.lines: list[str] = []
        self.tamper: Tamper | None = None  # (line, stdout) -> the stdout the client gets
        self.broken = False

    def _run(self, line: str) -> tuple[bytes, bytes, int]:
        self.lines.append(line)
        if self.broken:
            raise AdbError("the adb server closed the connection early")
        result = self.shell.run(line)
        out = self.tamper(line, result.out) if self.tamper else result.out
        return out, result.err, result.status

    def run_raw(self, command: str, timeout: float = 60.0) -> bytes:
        out, err, _ = self._run(command)
        return out + err

    def run(self, command: str, timeout: float = 60.0) -> tuple[bytes, int]:
        out, err, status = self._run(command)
        return out + err, status

    def run_streams(self, command: str, timeout: float = 60.0) -> tuple[bytes, bytes, int]:
        return self._run(command)


@pytest.fixture
def sim(tmp_path: Path) -> ShellDevice:
    shell = ShellDevice(tmp_path)
    shell.device.services.clock.freeze(True)  # the status bar's minute must not turn meanwhile
    path = tmp_path / "frames" / "emulator-5554.frame"
    framebuffer.create(path)
    shell.device.framebuffer = FrameBuffer.open(path, 1080, 2400)
    return shell


@pytest.fixture
def device(sim: ShellDevice, tmp_path: Path) -> Iterator[tuple[Device, SimWire]]:
    dev = Device(
        "emulator-5554", frame_file=str(tmp_path / "frames" / "emulator-5554.frame"), ui_source="dump"
    )
    wire = SimWire(sim)
    dev.wire = wire  # type: ignore[assignment]
    assert dev.shares_frames
    dev.window_size()
    dev.observe()  # the client has a frame: later observations name it with --since
    wire.lines.clear()
    yield dev, wire
    dev.close()


def showing(sim: ShellDevice) -> tuple[np.ndarray, str]:
    """What `screencap -p` and `uiautomator dump` show now."""
    pixels = decode_png_rgb(sim.run("screencap -p").out, "sim")
    return pixels, sim.run("uiautomator dump /dev/tty").text.split("UI hier")[0]


def element(xml: str, text: str) -> UIElement:
    return next(e for e in parse_hierarchy(xml) if e.text == text or e.content_desc == text)


def test_the_input_and_the_observation_after_it_go_in_one_round_trip(
    device: tuple[Device, SimWire], sim: ShellDevice
) -> None:
    dev, wire = device
    _, home_xml = dev.observe()
    wire.lines.clear()
    result, pixels, xml = dev.input_and_observe([tap_command(*element(home_xml, "Settings").center)])
    assert len(wire.lines) == 1 and wire.lines[0].startswith("{ input tap ")
    assert (result.exit_code, result.output) == (0, "")
    assert "Settings" in xml and xml != home_xml
    shown_pixels, shown_xml = showing(sim)
    assert np.array_equal(pixels, shown_pixels) and xml == shown_xml
    result, pixels, xml = dev.input_and_observe([key_command(4), key_command(3)])  # back, home
    assert len(wire.lines) == 2 and (result.exit_code, xml) == (0, showing(sim)[1])


def test_a_failing_input_is_told_apart_from_the_frame_reply(
    device: tuple[Device, SimWire], sim: ShellDevice
) -> None:
    dev, wire = device
    result, pixels, xml = dev.input_and_observe(["input tap 10"])
    assert result.exit_code == 1 and result.output.startswith("Error: Invalid arguments for command: tap")
    assert np.array_equal(pixels, showing(sim)[0]) and xml == showing(sim)[1]
    # Whatever an input prints, even what looks like a frame reply, stays its own output.
    forged = "frame 2 1 1 " + "0" * 32
    result, pixels, _ = dev.input_and_observe([f"echo '{forged}'", "echo same; false"])
    assert (result.exit_code, result.output) == (1, f"{forged}\nsame")
    assert pixels.shape == (2400, 1080, 3) and np.array_equal(pixels, showing(sim)[0])
    assert len(wire.lines) == 2


@pytest.mark.parametrize(
    "text", ["'; echo frame 1 1 1 x; echo '", "} >&1; echo 0", "$(reboot) `id` $?", 'a\\b "c"']
)
def test_quoted_input_stays_inside_its_group_in_the_sim_and_in_a_posix_shell(
    device: tuple[Device, SimWire], text: str
) -> None:
    """The line's framing holds whatever an input's quoted argument says, in the sim's shell and in
    a POSIX shell (mksh, Android's, parses `{ }`, `>&2`, `;` and `$?` the same)."""
    dev, _ = device
    result, _, xml = dev.input_and_observe([f"printf '%s\\n' {q(text)}", "true"])
    assert (result.output, result.exit_code) == (text, 0) and xml.startswith("<?xml")
    line = "{ " + f"printf '%s\\n' {q(text)}; false" + "; } >&2; echo $?; echo reply"
    posix = subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True)
    assert (posix.stdout, posix.stderr) == ("1\nreply\n", text + "\n")


def test_a_reply_without_the_status_line_is_one_device_error(device: tuple[Device, SimWire]) -> None:
    dev, wire = device
    wire.tamper = lambda line, out: out.split(b"\n", 1)[1]  # the frame reply where the status belongs
    with pytest.raises(DeviceError, match="where the status of `input tap 5 5` belongs") as caught:
        dev.input_and_observe([tap_command(5, 5)])
    assert not isinstance(caught.value, InputFailed)


def test_a_malformed_frame_reply_is_asked_again_without_the_input(
    device: tuple[Device, SimWire], sim: ShellDevice
) -> None:
    dev, wire = device
    wire.tamper = lambda line, out: b"0\nframe 99 1080 2400 " + b"0" * 32 + b"\n" if "input" in line else out
    result, pixels, xml = dev.input_and_observe([key_command(3)])
    assert result.exit_code == 0 and np.array_equal(pixels, showing(sim)[0]) and xml == showing(sim)[1]
    assert [line.startswith("{ input keyevent 3; } >&2;") for line in wire.lines] == [True, False]
    assert wire.lines[1].startswith("mgfarm-frame --ui")
    wire.lines.clear()
    wire.tamper = lambda line, out: b"0\nnot a frame\n" if "input" in line else b"garbage\n"
    with pytest.raises(DeviceError, match="sent no whole frame") as caught:
        dev.input_and_observe([key_command(3)])
    assert not isinstance(caught.value, InputFailed)
    assert sum("input" in line for line in wire.lines) == 1  # the key went once


def test_a_round_trip_that_breaks_is_the_inputs_failure(device: tuple[Device, SimWire]) -> None:
    dev, wire = device
    wire.broken = True
    with pytest.raises(InputFailed, match="failed during input"):
        dev.input_and_observe([tap_command(5, 5)])


def test_without_the_frame_command_the_input_runs_once_and_the_screen_comes_as_png(
    device: tuple[Device, SimWire], sim: ShellDevice
) -> None:
    dev, wire = device
    sim.device.framebuffer = None  # the device answers mgfarm-frame with an error
    result, pixels, xml = dev.input_and_observe([key_command(3)])
    assert result.exit_code == 0 and not dev.shares_frames
    assert np.array_equal(pixels, showing(sim)[0]) and xml == showing(sim)[1]
    assert sum("input" in line for line in wire.lines) == 1
    assert any(line == "screencap -p" for line in wire.lines)


def test_a_recent_screen_shown_again_is_not_read_again(
    device: tuple[Device, SimWire], sim: ShellDevice, tmp_path: Path
) -> None:
    dev, wire = device
    home_pixels, home_xml = dev.observe()
    assert dev._frames is not None
    read = dev._frames.read
    reads: list[framebuffer.Header] = []

    def counted(header: framebuffer.Header, screen: tuple[int, int]) -> np.ndarray:
        reads.append(header)
        return read(header, screen)

    dev._frames.read = counted  # type: ignore[method-assign, assignment]
    replies: list[bytes] = []
    wire.tamper = lambda line, out: replies.append(out.split(b"\n")[1]) or out
    home = sim.device.services.window.frame_digest().hex()
    _, settings, settings_xml = dev.input_and_observe([tap_command(*element(home_xml, "Settings").center)])
    there = sim.device.services.window.frame_digest().hex()
    _, back, xml = dev.input_and_observe([key_command(4)])
    assert len(reads) == 1  # Settings only: home came back under the digest it had
    assert back is home_pixels and xml == home_xml and np.array_equal(back, showing(sim)[0])
    # The client named its last frame and the one before; the sim answered which one it shows.
    assert wire.lines[-1].endswith(f"mgfarm-frame --ui --since {there},{home}")
    assert replies[-1] == f"same {home}".encode()
    _, forward, forward_xml = dev.input_and_observe([tap_command(*element(home_xml, "Settings").center)])
    assert forward is settings and forward_xml == settings_xml and len(reads) == 1
    assert wire.lines[-1].endswith(f"--since {home},{there}") and replies[-1] == f"same {there}".encode()
    wire.tamper = None
    # Another client of the same device does not see this one's frames: it reads the file.
    other = Device("emulator-5554", frame_file=str(tmp_path / "frames" / "emulator-5554.frame"))
    other.wire = wire  # type: ignore[assignment]
    assert other.observe()[0] is not forward and np.array_equal(other.observe()[0], forward)
    other.close()


def test_same_is_believed_only_for_a_frame_of_that_size_and_hierarchy_it_named(
    device: tuple[Device, SimWire], sim: ShellDevice
) -> None:
    """A hostile device answering `same` for a frame the client holds but did not name (one it
    keeps no hierarchy of when --ui is asked; another size) is refused, as for one it never showed."""
    dev, wire = device
    window = sim.device.services.window
    home = window.frame_digest().hex()  # shown with its hierarchy by the fixture
    sim.run("am start -a android.settings.DATE_SETTINGS")
    dev.screenshot_frame()  # a screen without its hierarchy
    no_xml = window.frame_digest().hex()
    sim.run("am start -a android.settings.SETTINGS")
    dev.observe(2)  # another screen at half size only
    half = window.frame_digest().hex()
    for forged in (no_xml, half, "ab" * 16):
        wire.tamper = lambda line, out, forged=forged: f"same {forged}\n".encode()
        wire.lines.clear()
        with pytest.raises(DeviceError, match=f"answered 'same' for {forged}, not for a screen named"):
            dev.observe()
        assert wire.lines == [f"mgfarm-frame --ui --since {home}"] * 2  # asked once more, refused again
    wire.tamper = None
    pixels, xml = dev.observe()
    assert np.array_equal(pixels, showing(sim)[0]) and xml == showing(sim)[1]


class SameWire:
    """A device that answers every `mgfarm-frame` with `same DIGEST`, whatever was named."""

    def __init__(self, digest: str) -> None:
        self.digest = digest
        self.lines: list[str] = []

    def run(self, command: str, timeout: float = 60.0) -> tuple[bytes, int]:
        self.lines.append(command)
        return f"same {self.digest}\n".encode(), 0


POOL = [bytes([i]) * 16 for i in range(5)]  # the digests of the screens shown


@settings(max_examples=200, deadline=None)
@given(
    shown=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([1, 2]), st.booleans()), max_size=8),
    with_ui=st.booleans(),
    scale=st.sampled_from([1, 2]),
    answer=st.integers(0, 5),
)
def test_same_hands_out_only_a_named_frame_of_the_size_and_hierarchy_asked(
    tmp_path_factory: pytest.TempPathFactory,
    shown: list[tuple[int, int, bool]],
    with_ui: bool,
    scale: int,
    answer: int,
) -> None:
    """After any frames shown (screen, size, hierarchy or not), the client names at most
    MAX_SINCE of its frames, each of the size asked and with its hierarchy when asked, and
    believes `same` only for one of those; the pixels and hierarchy it hands out are that screen's."""
    path = tmp_path_factory.mktemp("trust") / "emulator-5554.frame"
    framebuffer.create(path)
    dev = Device("emulator-5554", frame_file=str(path))
    held: set[tuple[str, int, bool]] = set()
    for index, size, has_xml in shown:
        pixels = np.full((8 // size, 4 // size, 3), index, dtype=np.uint8)
        pixels.flags.writeable = False
        xml = f"<?xml {index}?>" if has_xml else None
        dev._show(_Shown(POOL[index].hex(), size, pixels, xml))
        held.add((POOL[index].hex(), size, has_xml))
    digest = POOL[answer].hex() if answer < len(POOL) else "ab" * 16
    wire = SameWire(digest)
    dev.wire = wire  # type: ignore[assignment]
    try:
        pixels, xml = dev.observe(scale) if with_ui else (dev.screenshot_frame(scale), "")
    except DeviceError:
        pixels = None
    finally:
        dev.close()
    line = wire.lines[0]
    named = line.split(" --since ")[1].split(",") if " --since " in line else []
    assert len(named) == len(set(named)) <= framebuffer.MAX_SINCE
    for name in named:  # each one held at this size, with its hierarchy when asked
        assert (name, scale, True) in held or (not with_ui and (name, scale, False) in held)
    if shown and shown[-1][1] == scale and (shown[-1][2] or not with_ui):
        assert named[0] == POOL[shown[-1][0]].hex()  # the last frame first
    if digest not in named:
        assert pixels is None and len(wire.lines) == 2  # refused, asked once more, refused
        return
    assert pixels is not None and pixels.shape == (8 // scale, 4 // scale, 3)
    assert (pixels == POOL.index(bytes.fromhex(digest))).all()
    if with_ui:
        assert xml == f"<?xml {POOL.index(bytes.fromhex(digest))}?>"


class RecordingDevice:
    """What `ActionExecutor` asks of a device: the commands it sends, one round trip each."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def window_size(self) -> tuple[int, int]:
        return 1080, 2400

    def shell(self, cmd: str, timeout: float = 60.0) -> str:
        self.commands.append(cmd)
        return ""

    def start_app(self, package: str) -> None:
        self.commands.append(f"start {package}")

    def packages(self) -> list[str]:
        return ["com.android.settings"]


FIELD = UIElement(0, "Ada", "", "id/name", "android.widget.EditText", "p", (0, 100, 200, 200), *[True] * 9)
ACTIONS: list[tuple[dict[str, Any], list[str]]] = [
    ({"action_type": "click", "x": 10, "y": 20}, ["input tap 10 20"]),
    ({"action_type": "double_tap", "index": 0}, ["input tap 100 150; input tap 100 150"]),
    ({"action_type": "long_press", "x": 5, "y": 6}, ["input swipe 5 6 5 6 800"]),
    ({"action_type": "scroll", "direction": "down"}, ["input swipe 540 1920 540 480 300"]),
    ({"action_type": "navigate_back"}, ["input keyevent 4"]),
    ({"action_type": "keyboard_enter"}, ["input keyevent 66"]),
    (
        {"action_type": "input_text", "index": 0, "text": "a b\nc", "clear_text": True},
        [
            "input tap 100 150",
            "input keyevent 123 67 67 67",
            "input text a%sb",
            "input keyevent 66",
            "input text c",
        ],
    ),
]


@pytest.mark.parametrize(("action", "commands"), ACTIONS, ids=[a["action_type"] for a, _ in ACTIONS])
def test_input_actions_run_now_or_are_left_to_the_observation(
    action: dict[str, Any], commands: list[str]
) -> None:
    dev = RecordingDevice()
    executor = ActionExecutor(dev)  # type: ignore[arg-type]
    assert executor.execute(action, [FIELD]).inputs == ()
    assert dev.commands == commands  # one round trip each, the commands devices always got
    dev.commands.clear()
    assert executor.execute(action, [FIELD], defer_input=True).inputs == tuple(commands)
    assert dev.commands == []


def test_actions_whose_outcome_matters_run_now_even_when_inputs_are_deferred() -> None:
    dev = RecordingDevice()
    executor = ActionExecutor(dev, wait_seconds=0.0)  # type: ignore[arg-type]
    assert (
        executor.execute({"action_type": "open_app", "app_name": "settings"}, [], defer_input=True).inputs
        == ()
    )
    assert executor.execute({"action_type": "wait"}, [], defer_input=True).inputs == ()
    assert dev.commands == ["start com.android.settings"]


@pytest.mark.parametrize("reply", [b"", b"1", b"null"])
def test_a_settings_reply_that_is_not_a_value_and_a_line_break_is_an_error(
    device: tuple[Device, SimWire], reply: bytes
) -> None:
    # A silent device once read as the value "": `settings.equals {value: ""}` paid on it.
    dev, wire = device
    dev.settings_put("system", "mgfarm_probe", "")
    assert dev.settings_get("system", "mgfarm_probe") == ""
    assert dev.settings_get("system", "mgfarm_unset") is None
    wire.tamper = lambda line, out: reply if line.startswith("settings get") else out
    with pytest.raises(DeviceError, match="not a value and a line break"):
        dev.settings_get("system", "mgfarm_probe")


@pytest.mark.parametrize("reply", [b"", b"Row"])
def test_a_content_query_reply_that_is_neither_rows_nor_none_found_is_an_error(
    device: tuple[Device, SimWire], reply: bytes
) -> None:
    # A silent device once read as no rows: `content.count {equals: 0}` paid on it.
    dev, wire = device
    uri = "content://com.android.contacts/raw_contacts"
    assert dev.content_query(uri) == []  # "No result found." on a fresh device
    dev.content_insert(uri, {"account_type": "local"})
    assert len(dev.content_query(uri)) == 1
    wire.tamper = lambda line, out: reply if line.startswith("content query") else out
    with pytest.raises(DeviceError, match="neither rows nor"):
        dev.content_query(uri)
