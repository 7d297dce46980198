"""`Device`: one Android device reached over the adb server (adbutils) and the emulator console."""

from __future__ import annotations

import io
import re
import secrets
import struct
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import adbutils
import numpy as np
from PIL import Image

try:
    import pyspng
except ImportError:  # optional speed-up; Pillow decodes everything too
    pyspng = None

from mgfarm.adb.console import ConsoleClient, parse_snapshot_list, read_token
from mgfarm.adb.errors import AdbError, ConsoleError, SyncFailed
from mgfarm.adb.shell import ShellClient
from mgfarm.device import framebuffer, frames
from mgfarm.device.parsing import (
    content_reply,
    parse_content_rows,
    parse_current_focus,
    parse_resumed_activity,
    parse_sqlite_rows,
)
from mgfarm.device.ui import UIElement, parse_hierarchy
from mgfarm.errors import MgfarmError
from mgfarm.shellwords import content_bind, content_delete_command, content_insert_command
from mgfarm.shellwords import quote as q

DUMP_PATH = "/data/local/tmp/mgfarm_uidump.xml"
LONG_PRESS_MS = 800  # a finger held still this long (a swipe from a point to itself)
# Frames a device that shares frames keeps besides the last, for going back to a recent screen
# (back after a click, a dialog closed): ~8 MB each at 1080x2400, within `frames.SHARED`'s budget.
EARLIER_FRAMES = 2
_EMULATOR_SERIAL = re.compile(r"^emulator-(\d+)$")
_SETTINGS_NAMESPACES = ("system", "secure", "global")
_SNAPSHOT_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class DeviceError(MgfarmError):
    """The device is gone or refused an operation."""


class FileMissing(DeviceError):
    """The device answered that the file does not exist (and nothing else went wrong)."""


class InputFailed(DeviceError):
    """The round trip carrying input commands with an observation (`input_and_observe`) broke, as
    a `shell` of those commands would have: they may or may not have run, and nothing was observed."""


@dataclass(frozen=True)
class _Shown:
    """A frame read through the frame file, with its hierarchy: what `mgfarm-frame --since` names."""

    digest: str
    scale: int
    pixels: np.ndarray
    xml: str | None  # None: the hierarchy was not asked for


@dataclass(frozen=True)
class _Kept:
    """A frame shown before the last: its pixels in `frames.SHARED` under `key`, its hierarchy here."""

    key: bytes
    digest: str
    scale: int
    xml: str | None


@dataclass(frozen=True)
class ShellResult:
    output: str
    exit_code: int


class Device:
    """Shell, files, screenshots, UI, settings, providers and snapshots of one device.

    Everything goes through the device's real interfaces, so the same calls work on an emulator
    and on a simulated device.
    """

    def __init__(
        self,
        serial: str,
        adb_port: int = 5037,
        console_port: int | None = None,
        console_token: str | None = None,
        adb_host: str = "127.0.0.1",
        ui_source: str = "auto",
        profile: str = "",
        frame_file: str = "",
    ) -> None:
        """`profile`: the device profile its farm runs (android13, android14, aosp), which names the
        packages of Clock, Contacts, Phone and Files for setup steps; '' is the default's.
        `frame_file`: the file its farm shares raw frames through (a simulated device on this host,
        see `mgfarm.device.framebuffer`); '' or a file this process cannot open: PNG over adb."""
        if ui_source not in ("auto", "u2", "dump"):
            raise MgfarmError(f"ui_source {ui_source!r} is unknown; use 'auto', 'u2' or 'dump'.")
        self.serial = serial
        self.profile = profile
        self.adb_port = adb_port
        self.adb_host = adb_host
        self.client = adbutils.AdbClient(host=adb_host, port=adb_port)
        self.adb = self.client.device(serial)
        self.wire = ShellClient(serial, adb_port, adb_host)
        if console_port is None:
            m = _EMULATOR_SERIAL.match(serial)
            console_port = int(m.group(1)) if m else None
        self.console_port = console_port
        self._console_token = console_token
        self._console: ConsoleClient | None = None
        self.ui_source = ui_source
        self._u2: Any = None
        self._u2_failed = False
        self._auto_source = "undecided"  # becomes "u2" or "dump" after the first comparison
        self._size: tuple[int, int] | None = None
        self._frames = _open_frame_file(frame_file)
        self._last: _Shown | None = None  # the last frame through the frame file
        # The frames shown before the last one, oldest first, their pixels in `frames.SHARED` under
        # this device's own prefix: named with --since (back to a recent screen is `same`) and
        # not read again when a reply names one.
        self._earlier: list[_Kept] = []
        self._key_prefix = secrets.token_bytes(8)

    def __repr__(self) -> str:
        return f"Device({self.serial!r}, adb_port={self.adb_port})"

    # -- shell and files ---------------------------------------------------------------------
    @contextmanager
    def _adb_errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except (adbutils.AdbError, AdbError, OSError) as exc:
            raise DeviceError(
                f"Device {self.serial} failed during {what} ({exc}); "
                "check it with `mgfarm ps` or `adb devices`."
            ) from exc

    def shell(self, cmd: str, timeout: float = 60.0) -> str:
        """Run a shell command line; returns its output (stdout and stderr), right-stripped."""
        return self.shell_bytes(cmd, timeout).decode("utf-8", "replace").rstrip()

    def shell_bytes(self, cmd: str, timeout: float = 60.0) -> bytes:
        with self._adb_errors("shell"):
            return self.wire.run_raw(cmd, timeout)

    def shell2(self, cmd: str, timeout: float = 60.0) -> ShellResult:
        """Run a shell command line; returns its output and exit status."""
        with self._adb_errors("shell"):
            output, code = self.wire.run(cmd, timeout)
        return ShellResult(output=output.decode("utf-8", "replace").rstrip(), exit_code=code)

    def push(self, local_or_bytes: str | Path | bytes, path: str) -> None:
        with self._adb_errors(f"push to {path}"):
            data = local_or_bytes if isinstance(local_or_bytes, bytes) else Path(local_or_bytes).read_bytes()
            self.wire.push(data, path)

    def push_many(self, files: list[tuple[bytes, str]]) -> None:
        """Several files (bytes, device path) in one sync session, in order."""
        with self._adb_errors(f"push to {', '.join(path for _, path in files)}"):
            self.wire.push_many(files)

    def pull(self, path: str) -> bytes:
        with self._pull_errors(path):
            return self.wire.pull(path)

    def pull_many(self, paths: list[str], limit: int | None = None) -> list[bytes | None]:
        """Several files in one round trip of requests; None for each the device says is missing.
        With `limit`, a file is kept to `limit + 1` bytes: one that long was longer than the bound."""
        with self._pull_errors(", ".join(paths)):
            return self.wire.pull_many(paths, limit=limit)

    @contextmanager
    def _pull_errors(self, what: str) -> Iterator[None]:
        """FileMissing when the device answered that a file does not exist, else DeviceError."""
        with self._adb_errors(f"pull of {what}"):
            try:
                yield
            except SyncFailed as exc:  # the device answered: the file is missing or unreadable
                kind = FileMissing if "No such file or directory" in exc.reason else DeviceError
                raise kind(f"Cannot read {exc.path} on {self.serial}: {exc.reason}.") from exc

    # -- providers, databases, settings ------------------------------------------------------
    def content_query(
        self,
        uri: str,
        projection: list[str] | None = None,
        where: str | None = None,
        sort: str | None = None,
    ) -> list[dict[str, str | None]]:
        """Rows from `content query`, as dicts of column -> value (None for NULL)."""
        cmd = f"content query --uri {q(uri)}"
        if projection:
            cmd += f" --projection {q(':'.join(projection))}"
        if where:
            cmd += f" --where {q(where)}"
        if sort:
            cmd += f" --sort {q(sort)}"
        res = self.shell2(cmd)
        if res.exit_code != 0 or res.output.startswith(("Error", "java.")):
            raise DeviceError(f"content query {uri} failed on {self.serial}: {res.output.strip()[:300]}")
        if not content_reply(res.output):  # a silent device is no answer, never "no rows"
            raise DeviceError(
                f"content query {uri} on {self.serial} answered {res.output[:80]!r}, neither rows nor "
                "'No result found.'; the device's content command is not answering."
            )
        return parse_content_rows(res.output, projection)

    def content_insert(self, uri: str, values: dict[str, object]) -> None:
        self._content_write(content_insert_command(uri, values))

    def content_update(self, uri: str, values: dict[str, object], where: str | None = None) -> None:
        cmd = f"content update --uri {q(uri)} " + " ".join(
            f"--bind {content_bind(k, v)}" for k, v in values.items()
        )
        if where:
            cmd += f" --where {q(where)}"
        self._content_write(cmd)

    def content_delete(self, uri: str, where: str | None = None) -> None:
        self._content_write(content_delete_command(uri, where))

    def _content_write(self, cmd: str) -> None:
        res = self.shell2(cmd)
        if res.exit_code != 0 or res.output.strip():
            raise DeviceError(f"`{cmd[:120]}` failed on {self.serial}: {res.output.strip()[:300]}")

    def sqlite(self, db: str, sql: str) -> list[list[str]]:
        """Rows of `sqlite3 DB SQL` (list mode); raises with sqlite's message on error."""
        res = self.shell2(f"sqlite3 {q(db)} {q(sql)}")
        if res.exit_code != 0:
            raise DeviceError(f"sqlite3 {db} failed on {self.serial}: {res.output.strip()[:300]}")
        return parse_sqlite_rows(res.output)

    def settings_get(self, namespace: str, key: str) -> str | None:
        """A setting's value, None when unset. `settings get` prints the value and a line break
        ("null" when unset); any other reply (nothing at all, a failure) is a DeviceError, never
        a value: a judge must not read a silent device as the empty string."""
        _check_namespace(namespace)
        with self._adb_errors("shell"):
            output, code = self.wire.run(f"settings get {namespace} {q(key)}")
        text = output.decode("utf-8", "replace")
        if code != 0 or not text.endswith("\n"):
            raise DeviceError(
                f"`settings get {namespace} {key}` on {self.serial} answered {text[:80]!r} with status "
                f"{code}, not a value and a line break; the device's settings command is not answering."
            )
        value = text[:-1].removesuffix("\r")
        return None if value == "null" else value

    def settings_put(self, namespace: str, key: str, value: object) -> None:
        _check_namespace(namespace)
        res = self.shell2(f"settings put {namespace} {q(key)} {q(value)}")
        if res.exit_code != 0:
            raise DeviceError(f"settings put {namespace} {key} failed on {self.serial}: {res.output.strip()}")

    def settings_delete(self, namespace: str, key: str) -> None:
        _check_namespace(namespace)
        self.shell(f"settings delete {namespace} {q(key)}")

    def getprop(self, key: str) -> str:
        return self.shell(f"getprop {q(key)}")

    # -- screen ------------------------------------------------------------------------------
    def window_size(self) -> tuple[int, int]:
        """(width, height) in pixels, from `wm size` (cached: it does not change)."""
        if self._size is None:
            out = self.shell("wm size")
            sizes = re.findall(r"(\d+)x(\d+)", out)
            if not sizes:
                raise DeviceError(f"`wm size` on {self.serial} printed {out!r}, not a size.")
            w, h = sizes[-1]  # an Override size, when present, comes last and wins
            self._size = (int(w), int(h))
        return self._size

    def screenshot_png(self) -> bytes:
        """The screen as PNG bytes, straight from `screencap -p`."""
        return self.shell_bytes("screencap -p")

    def screenshot(self) -> Image.Image:
        """The screen as an RGB PIL image."""
        return Image.fromarray(self.screenshot_frame())  # Pillow copies into its own layout

    def screenshot_array(self) -> np.ndarray:
        """The screen as a new, writable uint8 array of shape (height, width, 3)."""
        return self.screenshot_frame().copy()

    def screenshot_frame(self, scale: int = 1) -> np.ndarray:
        """The screen as a read-only uint8 array of shape (height, width, 3), without a copy.

        Devices of this process showing the same screen share one array (see `mgfarm.device.frames`);
        copy it (`np.array(frame)`) to draw on it. `scale` 2 or 4 divides each side (every pixel the
        mean of a block, Pillow's `reduce`), done by the device when it shares frames.
        """
        _check_scale(scale)
        if self._frames is not None:
            shared = self._shared_frame(False, scale)[1]
            if shared is not None:
                return shared[0]
        full = frames.SHARED.get(self.screenshot_png(), lambda png: decode_png_rgb(png, self.serial))
        return full if scale == 1 else reduce_frame(full, scale)

    @property
    def shares_frames(self) -> bool:
        """Whether screens come through the farm's frame file (`observe` is then one round trip)."""
        return self._frames is not None

    def observe(self, scale: int = 1) -> tuple[np.ndarray, str]:
        """The screen (as `screenshot_frame(scale)`) and the hierarchy XML (as `ui_xml`) together.

        Through the frame file in one round trip when the device shares frames; an unchanged screen
        is neither written nor sent again. Else a screenshot and a hierarchy one after the other.
        """
        _check_scale(scale)
        if self._frames is not None:
            shared = self._shared_frame(True, scale)[1]
            if shared is not None:
                return shared
        return self.screenshot_frame(scale), self.ui_xml()

    def input_and_observe(
        self, commands: Sequence[str], scale: int = 1
    ) -> tuple[ShellResult, np.ndarray, str]:
        """Run input commands (fire-and-forget ones, such as `tap_command`'s), then `observe(scale)`.

        When the device shares frames, commands and observation travel as one shell command line,
        one round trip where a `shell` each and `observe` take two or more. Returns the commands'
        output and the exit status of the last one, with the screen and the hierarchy. InputFailed
        when the round trip carrying the commands broke, as `shell` raises DeviceError.
        """
        _check_scale(scale)
        if self._frames is not None and commands:
            result, shared = self._shared_frame(True, scale, commands)
            assert result is not None  # the commands went with the first attempt
            pixels, xml = shared if shared is not None else self.observe(scale)
            return result, pixels, xml
        result = ShellResult("", 0)
        for command in commands:  # one round trip each, as `shell` makes them
            result = self.shell2(command)
        return result, *self.observe(scale)

    def _shared_frame(
        self, with_ui: bool, scale: int, inputs: Sequence[str] = ()
    ) -> tuple[ShellResult | None, tuple[np.ndarray, str] | None]:
        """`inputs`' result (None without inputs) and (pixels, hierarchy or "") through the frame
        file, or None when the device cannot (no such command, a screen too large for the file):
        this device then falls back to PNG for good. The inputs go with the first attempt only."""
        assert self._frames is not None
        named = self._named(with_ui, scale)
        cmd = "mgfarm-frame" + (" --ui" if with_ui else "") + (f" --scale {scale}" if scale > 1 else "")
        cmd += f" --since {','.join(shown.digest for shown in named)}" if named else ""
        result: ShellResult | None = None
        problem = ""
        for attempt in range(2):  # a frame another client of the device wrote meanwhile: once more
            if attempt and not self._reopen_frames():
                return result, None
            if attempt == 0 and inputs:
                result, out, code = self._run_with_inputs(inputs, cmd)
            else:
                with self._adb_errors("mgfarm-frame"):
                    out, code = self.wire.run(cmd)
            if code != 0:
                self._drop_frames()
                return result, None
            try:
                return result, self._read_reply(out, named, with_ui, scale)
            except framebuffer.FrameError as exc:
                problem = str(exc)
        raise DeviceError(f"Device {self.serial} sent no whole frame: {problem}.")

    def _run_with_inputs(self, inputs: Sequence[str], frame_cmd: str) -> tuple[ShellResult, bytes, int]:
        """`{ INPUT; ...; } >&2; echo $?; FRAME_CMD` in one round trip: (the inputs' output and the
        last one's status, the frame command's stdout and exit status).

        The inputs write only to stderr and the shell's `echo $?` is stdout's first line, so nothing
        they print can pass for the frame reply, and their status is told apart from the frame
        command's (the shell's own). The same in the sim's shell and in mksh (`{ }`, `>&2`, `$?`).
        """
        line = "{ " + "; ".join(inputs) + "; } >&2; echo $?; " + frame_cmd
        try:
            with self._adb_errors("input"):
                out, err, code = self.wire.run_streams(line)
        except DeviceError as exc:
            raise InputFailed(str(exc)) from exc
        status, newline, reply = out.partition(b"\n")
        if not newline or not (status.isdigit() and len(status) <= 3):
            raise DeviceError(
                f"Device {self.serial} answered {out[:120]!r} where the status of `{inputs[-1]}` belongs."
            )
        return ShellResult(err.decode("utf-8", "replace").rstrip(), int(status)), reply, code

    def _reopen_frames(self) -> bool:
        """Open the frame file again (a restarted replica's farm made a new one); False, and PNG
        from now on, when it is gone."""
        assert self._frames is not None
        try:
            self._frames.reopen()
        except framebuffer.FrameError:
            self._drop_frames()
            return False
        return True

    def _drop_frames(self) -> None:
        if self._frames is not None:
            self._frames.close()
            self._frames = None
        self._last = None
        for kept in self._earlier:
            frames.SHARED.drop(kept.key)
        self._earlier = []

    def _named(self, with_ui: bool, scale: int) -> list[_Shown]:
        """The frames to name with --since, the last first: only those of this `scale`, with their
        hierarchy when it is asked for, whose pixels are still kept (held from here on). A `same`
        is believed only for one of these, so it can never hand out another size or no hierarchy."""
        named: list[_Shown] = []
        last = self._last
        if last is not None and last.scale == scale and not (with_ui and last.xml is None):
            named.append(last)
        for kept in reversed(self._earlier):
            if len(named) == framebuffer.MAX_SINCE:
                break
            if kept.scale != scale or (with_ui and kept.xml is None):
                continue
            pixels = frames.SHARED.find(kept.key)
            if pixels is not None and all(n.digest != kept.digest for n in named):  # else dropped
                named.append(_Shown(kept.digest, kept.scale, pixels, kept.xml))
        return named

    def _read_reply(
        self, out: bytes, named: list[_Shown], with_ui: bool, scale: int
    ) -> tuple[np.ndarray, str]:
        assert self._frames is not None
        reply = framebuffer.parse_reply(out)
        digest = reply.signature.hex()
        if reply.header is None:  # `same`: only for a screen the client named
            shown = next((n for n in named if n.digest == digest), None)
            if shown is None:
                raise framebuffer.FrameError(f"it answered 'same' for {digest}, not for a screen named")
            self._show(shown)
            return shown.pixels, shown.xml or ""
        width, height = scaled_size(self.window_size(), scale)
        rotated = (reply.header.width, reply.header.height) == (height, width)  # landscape
        pixels = self._earlier_frame(digest, scale, reply.header)
        if pixels is None:
            pixels = self._frames.read(reply.header, (height, width) if rotated else (width, height))
        xml: str | None = None
        if with_ui:
            text = reply.rest.decode("utf-8", "replace").rstrip()
            start = text.find("<?xml")
            if start < 0:
                raise framebuffer.FrameError(f"its hierarchy is {text[:120]!r}")
            xml = text[start:]
        self._show(_Shown(digest, scale, pixels, xml))
        return pixels, xml or ""

    def _show(self, shown: _Shown) -> None:
        """Make `shown` the last frame; the one it replaces is kept as an earlier one."""
        key = self._frame_key(shown.digest, shown.scale)
        for kept in self._earlier:
            if kept.key == key:  # the last frame is held as the last only
                self._earlier.remove(kept)
                frames.SHARED.drop(key)
                break
        last = self._last
        if last is not None and (last.digest, last.scale) == (shown.digest, shown.scale):
            if shown.xml is None:  # the same frame without its hierarchy: keep the one known
                shown = _Shown(shown.digest, shown.scale, shown.pixels, last.xml)
        elif last is not None:
            self._remember(last)
        self._last = shown

    def _frame_key(self, digest: str, scale: int) -> bytes:
        return self._key_prefix + f"{digest}/{scale}".encode()

    def _earlier_frame(self, digest: str, scale: int, header: framebuffer.Header) -> np.ndarray | None:
        """The pixels of a frame shown before under `digest`, when they are the size the reply says.

        The device's digest stands for its pixels, as it does for `same`; the file then holds these
        pixels again, and ~8 MB of reading (a 1080x2400 screen, ~1.5 ms) are saved."""
        pixels = frames.SHARED.find(self._frame_key(digest, scale))
        if pixels is None or pixels.shape != (header.height, header.width, framebuffer.CHANNELS):
            return None
        return pixels

    def _remember(self, shown: _Shown) -> None:
        """Keep the frame the last one replaces (pixels and hierarchy), and the EARLIER_FRAMES - 1
        before it."""
        key = self._frame_key(shown.digest, shown.scale)
        frames.SHARED.keep(key, shown.pixels)
        self._earlier = [kept for kept in self._earlier if kept.key != key]
        self._earlier.append(_Kept(key, shown.digest, shown.scale, shown.xml))
        while len(self._earlier) > EARLIER_FRAMES:
            frames.SHARED.drop(self._earlier.pop(0).key)

    # -- UI ----------------------------------------------------------------------------------
    def u2(self) -> Any:
        """A connected `uiautomator2.Device` (starts the on-device server on first use)."""
        if self._u2 is None:
            import uiautomator2

            self._u2 = uiautomator2.connect(self.adb)
        return self._u2

    def ui_xml(self) -> str:
        """The window hierarchy XML from uiautomator2's server or `uiautomator dump`.

        `auto` tries both once (after u2's server is up) and keeps the faster: on emulators u2
        is much faster (dump starts UiAutomation every time), elsewhere dump may win. A u2 failure
        falls back to dump for good.
        """
        source = self.ui_source if self.ui_source != "auto" else self._auto_source
        if source == "dump" or self._u2_failed:
            return self.dump_xml()
        try:
            if source == "u2":
                return self._u2_xml()
            self._u2_xml()  # first call starts the server: not a fair timing
            start = time.perf_counter()
            xml = self._u2_xml()
            u2_s = time.perf_counter() - start
            start = time.perf_counter()
            self.dump_xml()
            self._auto_source = "u2" if u2_s <= time.perf_counter() - start else "dump"
            return xml
        except Exception as exc:  # u2 raises many types; any failure means: use the fallback
            if self.ui_source == "u2":
                raise DeviceError(f"uiautomator2 failed on {self.serial}: {exc}") from exc
            self._u2_failed = True
            return self.dump_xml()

    def _u2_xml(self) -> str:
        return str(self.u2().dump_hierarchy())

    def dump_xml(self) -> str:
        """The hierarchy via `uiautomator dump` to a file and `cat`: one adb round trip."""
        out = self.shell(f"uiautomator dump {DUMP_PATH} >/dev/null && cat {DUMP_PATH}")
        start = out.find("<?xml")
        if start < 0:
            raise DeviceError(f"uiautomator dump failed on {self.serial}: {out.strip()[:300]}")
        return out[start:]

    def ui_elements(self) -> list[UIElement]:
        return parse_hierarchy(self.ui_xml())

    def current_app(self) -> tuple[str, str]:
        """(package, activity) in front, from dumpsys window, then dumpsys activity; ("", "") if none."""
        found = parse_current_focus(self.shell("dumpsys window windows"))
        if found is None:
            found = parse_resumed_activity(self.shell("dumpsys activity activities"))
        return found or ("", "")

    # -- input -------------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self.shell(tap_command(x, y))

    def long_press(self, x: int, y: int, ms: int = LONG_PRESS_MS) -> None:
        self.shell(swipe_command(x, y, x, y, ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self.shell(swipe_command(x1, y1, x2, y2, ms))

    def key(self, code: int | str) -> None:
        self.shell(key_command(code))

    def input_text(self, text: str) -> None:
        """Type text; spaces travel as `%s` (what `input text` expects), the rest is quoted."""
        for command in text_commands(text):
            self.shell(command)

    def start_app(self, package: str, activity: str | None = None) -> None:
        if activity:
            res = self.shell2(f"am start -n {q(package + '/' + activity)}")
        else:
            res = self.shell2(f"monkey -p {q(package)} -c android.intent.category.LAUNCHER 1")
        if res.exit_code != 0 or "Error" in res.output:
            raise DeviceError(f"Could not start {package} on {self.serial}: {res.output.strip()[:300]}")

    def packages(self) -> list[str]:
        out = self.shell("pm list packages")
        return [line.split(":", 1)[1] for line in out.splitlines() if line.startswith("package:")]

    # -- console: snapshots ------------------------------------------------------------------
    @property
    def console(self) -> ConsoleClient:
        if self.console_port is None:
            raise MgfarmError(
                f"Device {self.serial} has no emulator console; snapshots need an emulator or sim device."
            )
        if self._console is None:
            token = self._console_token if self._console_token is not None else read_token()
            self._console = ConsoleClient(self.console_port, token, host=self.adb_host)
        return self._console

    def snapshot_save(self, name: str) -> None:
        self.console.command(f"avd snapshot save {_snapshot_name(name)}")

    def snapshot_load(self, name: str) -> None:
        self.console.command(f"avd snapshot load {_snapshot_name(name)}")

    def snapshot_delete(self, name: str) -> None:
        self.console.command(f"avd snapshot delete {_snapshot_name(name)}")

    def snapshot_list(self) -> list[str]:
        return parse_snapshot_list(self.console.command("avd snapshot list"))

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Block until the device is online and `sys.boot_completed` is 1."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            try:
                if self.shell("getprop sys.boot_completed", timeout=5) == "1":
                    return
            except DeviceError as exc:
                last = str(exc)
            time.sleep(0.1)
        raise DeviceError(
            f"Device {self.serial} was not ready within {timeout:.0f} s {last}; is it running?".rstrip()
        )

    def close(self) -> None:
        self._drop_frames()
        if self._console is not None:
            self._console.close()
            self._console = None


# The most pixels a screenshot may have (a 4K display has 8.3 million): a PNG's header names its size,
# and a decoder allocates that before reading a byte of the image, whatever the device sent.
MAX_SCREEN_PIXELS = 16 * 1024 * 1024


def decode_png_rgb(data: bytes, serial: str) -> np.ndarray:
    """PNG bytes -> (H, W, 3) uint8, with pyspng when installed (much faster), else Pillow."""
    if data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        if width * height > MAX_SCREEN_PIXELS:
            raise DeviceError(
                f"screencap on {serial} returned a {width}x{height} image, larger than any screen."
            )
    try:
        if pyspng is not None:
            pixels = pyspng.load(data)
            if pixels.ndim == 3 and pixels.shape[2] in (3, 4) and pixels.dtype == np.uint8:
                return np.ascontiguousarray(pixels[:, :, :3])
        img = Image.open(io.BytesIO(data))
        img.load()
        return np.asarray(img.convert("RGB") if img.mode != "RGB" else img, dtype=np.uint8)
    except (OSError, ValueError, RuntimeError) as exc:
        raise DeviceError(f"screencap on {serial} returned no image ({data[:80]!r}).") from exc


def tap_command(x: int, y: int) -> str:
    """The shell command of a tap at (x, y); the input commands below run with `shell` or, several
    with an observation, with `input_and_observe`."""
    return f"input tap {int(x)} {int(y)}"


def swipe_command(x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> str:
    return f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(ms)}"


def key_command(code: int | str) -> str:
    if isinstance(code, str) and not re.fullmatch(r"[A-Z0-9_]+", code):
        raise MgfarmError(f"Key {code!r} is not a key name like KEYCODE_BACK or a number.")
    return f"input keyevent {code}"


def text_commands(text: str) -> list[str]:
    """The commands that type `text`: spaces travel as `%s` (what `input text` expects), the rest is
    quoted; `input text` cannot carry a newline, so ENTER is pressed between lines."""
    commands: list[str] = []
    for i, line in enumerate(text.split("\n")):
        if i:
            commands.append(key_command(66))
        if line:
            commands.append(f"input text {q(line.replace(' ', '%s'))}")
    return commands


SCALES = (1, 2, 4)


def _check_scale(scale: int) -> None:
    if scale not in SCALES:
        raise MgfarmError(f"Screen scale {scale!r} is unsupported; use 1 (full size), 2 or 4.")


def scaled_size(size: tuple[int, int], scale: int) -> tuple[int, int]:
    """(width, height) of a screen of `size` divided by `scale` (a partial block counts, as in `reduce`)."""
    return -(-size[0] // scale), -(-size[1] // scale)


def reduce_frame(pixels: np.ndarray, scale: int) -> np.ndarray:
    """A read-only frame `scale` times smaller each side, as the sim makes it (Pillow's `reduce`)."""
    reduced = np.asarray(Image.fromarray(pixels).reduce(scale))
    reduced.flags.writeable = False
    return reduced


def _open_frame_file(path: str) -> framebuffer.FrameFile | None:
    """The farm's frame file, read-only; None when there is none or this process cannot open it
    (another host, another user): screens then come as PNG over adb."""
    if not path:
        return None
    try:
        return framebuffer.FrameFile(path)
    except framebuffer.FrameError:
        return None


def _check_namespace(namespace: str) -> None:
    if namespace not in _SETTINGS_NAMESPACES:
        raise MgfarmError(f"Settings namespace {namespace!r} is unknown; use system, secure or global.")


def _snapshot_name(name: str) -> str:
    if not _SNAPSHOT_NAME.match(name):
        raise MgfarmError(f"Snapshot name {name!r} is invalid; use letters, digits, '.', '_' and '-'.")
    return name


__all__ = ["ConsoleError", "Device", "DeviceError", "FileMissing", "InputFailed", "ShellResult"]
