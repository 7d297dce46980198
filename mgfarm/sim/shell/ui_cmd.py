"""Commands that reach the screen: input, uiautomator dump, screencap, wm, ime (window service)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mgfarm.sim.framebuffer import MAX_SINCE, RAW, FrameBuffer, parse_since, rgb_rows
from mgfarm.sim.shell.files import CommandError
from mgfarm.sim.shell.registry import Invocation, command, is_number
from mgfarm.sim.system.fs import PathEscapeError

if TYPE_CHECKING:
    from mgfarm.sim.system.windows import WindowManager

# KeyEvent.KEYCODE_* values (frameworks/base/core/java/android/view/KeyEvent.java).
KEYCODES: dict[str, int] = {
    "UNKNOWN": 0,
    "SOFT_LEFT": 1,
    "SOFT_RIGHT": 2,
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    "STAR": 17,
    "POUND": 18,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "CLEAR": 28,
    "COMMA": 55,
    "PERIOD": 56,
    "ALT_LEFT": 57,
    "ALT_RIGHT": 58,
    "SHIFT_LEFT": 59,
    "SHIFT_RIGHT": 60,
    "TAB": 61,
    "SPACE": 62,
    "SYM": 63,
    "EXPLORER": 64,
    "ENVELOPE": 65,
    "ENTER": 66,
    "DEL": 67,
    "GRAVE": 68,
    "MINUS": 69,
    "EQUALS": 70,
    "LEFT_BRACKET": 71,
    "RIGHT_BRACKET": 72,
    "BACKSLASH": 73,
    "SEMICOLON": 74,
    "APOSTROPHE": 75,
    "SLASH": 76,
    "AT": 77,
    "NUM": 78,
    "HEADSETHOOK": 79,
    "FOCUS": 80,
    "PLUS": 81,
    "MENU": 82,
    "NOTIFICATION": 83,
    "SEARCH": 84,
    "MEDIA_PLAY_PAUSE": 85,
    "MEDIA_STOP": 86,
    "MEDIA_NEXT": 87,
    "MEDIA_PREVIOUS": 88,
    "MUTE": 91,
    "PAGE_UP": 92,
    "PAGE_DOWN": 93,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "CTRL_LEFT": 113,
    "CTRL_RIGHT": 114,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "VOLUME_MUTE": 164,
    "APP_SWITCH": 187,
    "SLEEP": 223,
    "WAKEUP": 224,
    "ALL_APPS": 284,
}
KEYCODES.update({str(d): 7 + d for d in range(10)})
KEYCODES.update({chr(ord("A") + i): 29 + i for i in range(26)})

INPUT_SOURCES = {
    "keyboard",
    "mouse",
    "joystick",
    "touchnavigation",
    "touchpad",
    "trackball",
    "stylus",
    "dpad",
    "gesture",
    "touchscreen",
    "gamepad",
    "rotaryencoder",
}


def keycode(name: str) -> int:
    """A key given as a number, `KEYCODE_X` or `X`."""
    if is_number(name):
        return int(name)
    key = name.upper().removeprefix("KEYCODE_")
    if key not in KEYCODES:
        raise ValueError(name)
    return KEYCODES[key]


def number(text: str) -> int:
    return int(float(text))


@command("input")
async def input_(inv: Invocation) -> int:
    args = inv.argv[1:]
    if args and args[0] in INPUT_SOURCES:
        args = args[1:]
    if args[:1] == ["-d"] and len(args) > 1:
        args = args[2:]
    if not args:
        inv.err("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
        return 1
    verb, rest = args[0], args[1:]
    try:
        win = inv.device.services.window
        if verb == "tap" and len(rest) == 2:
            win.tap(number(rest[0]), number(rest[1]))
        elif verb in ("swipe", "draganddrop") and len(rest) in (4, 5):
            x1, y1, x2, y2 = (number(v) for v in rest[:4])
            default = 300 if verb == "swipe" else 1000
            ms = number(rest[4]) if len(rest) == 5 else default
            if verb == "swipe" and (x1, y1) == (x2, y2) and ms >= 500 and hasattr(win, "long_press"):
                win.long_press(x1, y1)  # what `input swipe x y x y 1000` means to every tool
            else:
                win.swipe(x1, y1, x2, y2, ms)
        elif verb == "text" and rest:
            win.text(" ".join(rest).replace("%s", " "))
        elif verb == "keyevent" and rest:
            codes = [keycode(k) for k in rest if not k.startswith("--")]
            for code in codes:
                if "--longpress" in rest and hasattr(win, "long_key"):
                    win.long_key(code)
                else:
                    win.key(code)
        elif verb == "press":
            win.key(KEYCODES["DPAD_CENTER"])
        else:
            inv.err(
                f"Error: Unknown command: {verb}\n"
                if verb not in ("tap", "swipe", "text", "keyevent")
                else f"Error: Invalid arguments for command: {verb}\n"
            )
            return 1
    except ValueError as exc:
        inv.err(f"Error: Invalid arguments for command: {verb} ({exc})\n")
        return 1
    except CommandError as exc:
        inv.err(f"Error: {exc}\n")
        return 1
    return 0


@command("uiautomator")
async def uiautomator(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args or args[0] != "dump":
        inv.err(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
            "help: displays help message\n\ndump: creates an XML dump of current UI hierarchy\n"
        )
        return 1
    target = next((a for a in args[1:] if not a.startswith("--")), "/sdcard/window_dump.xml")
    try:
        xml = inv.device.services.window.dump_xml()
        if target == "/dev/tty" or target == "/dev/stdout":
            inv.out(xml)
        else:
            # No mkdir of missing parents: an unwritable target is an error, as on a device.
            write_file(inv, target, xml.encode())
    except CommandError as exc:
        inv.err(f"ERROR: could not get idle state. {exc}\n")
        return 1
    except OSError as exc:
        inv.err(f"ERROR: could not write {target}: {exc.strerror or exc.__class__.__name__}\n")
        return 1
    inv.out(f"UI hierchary dumped to: {target}\n")
    return 0


def write_file(inv: Invocation, target: str, data: bytes) -> None:
    """Write an output file through the device filesystem (descriptors, and the device clock's
    time on it); OSError as the host gave it, a refused path as Permission denied."""
    try:
        inv.fs.write_bytes(target, data, inv.cwd)
    except PathEscapeError as exc:
        raise CommandError(f"{target}: Permission denied") from exc


@command("screencap")
async def screencap(inv: Invocation) -> int:
    args = [a for a in inv.argv[1:]]
    png = "-p" in args
    operands = [a for a in args if not a.startswith("-")]
    if "-d" in args:
        operands = operands[1:]  # display id
    target = operands[0] if operands else None
    if target is not None and target.endswith(".png"):
        png = True
    try:
        win = inv.device.services.window
        data = win.screencap_png() if png else win.screencap_raw()
        if target is None:
            inv.out(data)
        else:
            write_file(inv, target, data)
    except CommandError as exc:
        inv.err(f"Error: {exc}\n")
        return 1
    except OSError as exc:  # as screencap.cpp says it; the host path must not show
        inv.err(f"Error opening file: {target} ({exc.strerror or exc.__class__.__name__})\n")
        return 1
    return 0


@command("mgfarm-frame")
async def mgfarm_frame(inv: Invocation) -> int:
    """`mgfarm-frame [--ui] [--since D1[,D2...]] [--scale 1|2|4]`: the screen into the farm's frame file.

    Replies `frame SEQ WIDTH HEIGHT DIGEST` (the file now holds that frame), then with --ui the
    hierarchy as `uiautomator dump` writes it: screenshot and UI in one round trip. Or `same DIGEST`
    when the screen is one of those the client named with --since (up to MAX_SINCE digests it
    holds pixels and hierarchy for, its last frame first): nothing written, nothing sent. The file
    then keeps the frame it held, which the next write starts from.
    `--scale 2` writes the screen at half its width and height (resized here, so a quarter of the
    bytes cross to the client).
    mgfarm's own command, not Android's: clients use it only for devices their farm gave a frame file.
    """
    args = inv.argv[1:]
    with_ui = "--ui" in args
    since: list[str] = []
    if "--since" in args:
        named = parse_since(args[args.index("--since") + 1]) if "--since" in args[:-1] else None
        if named is None:
            inv.err(
                f"mgfarm-frame: --since takes 1 to {MAX_SINCE} digests (32 hex digits), comma-separated\n"
            )
            return 2
        since = named
    scale = args[args.index("--scale") + 1] if "--scale" in args[:-1] else "1"
    if scale not in ("1", "2", "4"):
        inv.err(f"mgfarm-frame: --scale {scale} is not 1, 2 or 4\n")
        return 2
    buffer = inv.device.framebuffer
    if buffer is None:
        inv.err("mgfarm-frame: this device has no frame file\n")
        return 1
    win = inv.device.services.window
    digest = win.frame_digest()
    if digest.hex() in since:  # the client has these pixels and this hierarchy already
        inv.out(f"same {digest.hex()}\n")
        return 0
    if (buffer.signature, buffer.scale) != (digest, int(scale)):  # another client may have written it
        problem = write_frame(buffer, win, digest, int(scale))
        if problem:
            inv.err(f"mgfarm-frame: {problem}\n")
            return 1
    buffer.touch()
    width, height = buffer.size
    inv.out(f"frame {buffer.seq} {width} {height} {digest.hex()}\n")
    if with_ui:
        inv.out(win.dump_xml())
    return 0


def write_frame(buffer: FrameBuffer, win: WindowManager, digest: bytes, scale: int) -> str:
    """Put the current frame (digest `digest`) into the frame file; "" or what went wrong.

    A screen the worker wrote lately is copied from its raw frames. Else it is drawn, and when
    it was drawn over the frame the file holds (redraw's bands), only the rows that changed are
    written: the rest of the file holds them already. Else every row is written, and kept."""
    kept = RAW.get((digest, scale))
    if kept is None:
        # Rows are written against what the file holds, never what a client shows: after `same`
        # for an older screen the file still holds the frame written before it.
        over = buffer.signature if buffer.scale == scale else b""
        image, rows = win.frame_image(scale, over)
        if rows is not None and image.size == buffer.size:
            buffer.write_rows(image, rows, digest)
            return ""
        kept = (image.width, image.height, rgb_rows(image))
        RAW.put((digest, scale), kept)
    else:
        win.frame_copied()  # so that its next frame is drawn over this one
    width, height, pixels = kept
    if not buffer.fits(width, height):
        return f"a {width}x{height} screen does not fit the frame file"
    buffer.write(pixels, width, height, digest, scale)
    return ""


def physical_size(inv: Invocation) -> tuple[int, int]:
    return inv.device.services.window.size


def physical_density(inv: Invocation) -> int:
    return inv.device.services.window.density


async def run_wm(inv: Invocation, args: list[str]) -> int:
    """`wm size [WxH|reset]`, `wm density [N|reset]`; overrides live where Android keeps them (settings)."""
    settings = inv.device.services.settings
    if args[:1] == ["size"]:
        if len(args) > 1:
            if args[1] == "reset":
                settings.delete("global", "display_size_forced")
                return 0
            w, sep, h = args[1].partition("x")
            if not sep or not is_number(w) or not is_number(h):
                inv.err(f"Error: bad size {args[1]}\n")
                return 1
            settings.put("global", "display_size_forced", f"{w},{h}")
            return 0
        pw, ph = physical_size(inv)
        inv.out(f"Physical size: {pw}x{ph}\n")
        forced = settings.get("global", "display_size_forced")
        if forced:
            inv.out(f"Override size: {forced.replace(',', 'x')}\n")
        return 0
    if args[:1] == ["density"]:
        if len(args) > 1:
            if args[1] == "reset":
                settings.delete("secure", "display_density_forced")
                return 0
            if not is_number(args[1]):
                inv.err(f"Error: bad density {args[1]}\n")
                return 1
            settings.put("secure", "display_density_forced", args[1])
            return 0
        inv.out(f"Physical density: {physical_density(inv)}\n")
        forced = settings.get("secure", "display_density_forced")
        if forced:
            inv.out(f"Override density: {forced}\n")
        return 0
    inv.err("usage: wm [size|density] ...\n")
    return 1


@command("wm")
async def wm(inv: Invocation) -> int:
    return await run_wm(inv, inv.argv[1:])
