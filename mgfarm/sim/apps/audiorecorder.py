"""Audio Recorder (com.dimowner.audiorecorder): record, stop, and rename the recording.

Recordings are files in the app's records folder on external storage, named as the app's default
"Record-<n>.m4a" (FileUtil.generateRecordNameCounted). Stop writes a real M4A: an MP4 (brand "M4A ")
holding one AAC-LC mono 44.1 kHz track of silent frames as long as the recording took (at least one
second: AndroidWorld freezes the device clock). A tap on the record's name opens the Rename dialog;
as in the app, the name is edited without its extension and ".m4a" is added back.
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections.abc import Callable

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.ui.views import Column, EditText, IconButton, Row, Spacer, Stack, Text, View
from mgfarm.sim.ui.widgets import app_bar, dialog

PKG = "com.dimowner.audiorecorder"
WELCOME = f"{PKG}.app.welcome.WelcomeActivity"
MAIN = f"{PKG}.app.main.MainActivity"
RECORDS = f"/storage/emulated/0/Android/data/{PKG}/files/Music/records"
EXT = ".m4a"
RATE = 44100
FRAME_SAMPLES = 1024  # samples per AAC frame
# One AAC-LC raw_data_block: a mono channel element (global gain 0, long window, max_sfb 0: no
# spectral data, so silence) then ID_END, byte-aligned: 32 bits.
SILENT_FRAME = bytes((0x00, 0x00, 0x00, 0x07))
# AudioSpecificConfig: object type 2 (AAC LC), frequency index 4 (44100 Hz), 1 channel.
AUDIO_CONFIG = bytes((0x12, 0x08))
UNITY = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)  # identity matrix


def box(kind: bytes, *parts: bytes) -> bytes:
    body = b"".join(parts)
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind: bytes, version: int, flags: int, *parts: bytes) -> bytes:
    return box(kind, struct.pack(">I", (version << 24) | flags), *parts)


def descriptor(tag: int, body: bytes) -> bytes:
    """An MPEG-4 descriptor with the one-byte length its small bodies need."""
    assert len(body) < 128
    return bytes((tag, len(body))) + body


def m4a(seconds: float) -> bytes:
    """A valid M4A file of `seconds` of silence (ISO/IEC 14496-12 boxes, 14496-3 AAC)."""
    frames = max(1, round(seconds * RATE / FRAME_SAMPLES))
    samples = frames * FRAME_SAMPLES
    ms = samples * 1000 // RATE
    ftyp = box(b"ftyp", b"M4A ", struct.pack(">I", 0), b"M4A mp42isom")
    mdat = box(b"mdat", SILENT_FRAME * frames)
    es = descriptor(
        0x03,
        struct.pack(">HB", 0, 0)
        + descriptor(
            0x04,
            # MPEG-4 audio, an audio stream; bufferSizeDB (24 bits), max and average bitrate unknown
            bytes((0x40, 0x15)) + bytes(3) + struct.pack(">II", 0, 0) + descriptor(0x05, AUDIO_CONFIG),
        )
        + descriptor(0x06, b"\x02"),
    )
    mp4a = box(
        b"mp4a",
        bytes(6) + struct.pack(">H", 1) + bytes(8) + struct.pack(">HHHHI", 1, 16, 0, 0, RATE << 16),
        full_box(b"esds", 0, 0, es),
    )

    def stbl(chunk_offset: int) -> bytes:
        return box(
            b"stbl",
            full_box(b"stsd", 0, 0, struct.pack(">I", 1), mp4a),
            full_box(b"stts", 0, 0, struct.pack(">III", 1, frames, FRAME_SAMPLES)),
            full_box(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, frames, 1)),
            full_box(
                b"stsz", 0, 0, struct.pack(">II", 0, frames), struct.pack(">I", len(SILENT_FRAME)) * frames
            ),
            full_box(b"stco", 0, 0, struct.pack(">II", 1, chunk_offset)),
        )

    def moov(chunk_offset: int) -> bytes:
        url = full_box(b"url ", 0, 1)
        minf = box(
            b"minf",
            full_box(b"smhd", 0, 0, struct.pack(">HH", 0, 0)),
            box(b"dinf", full_box(b"dref", 0, 0, struct.pack(">I", 1), url)),
            stbl(chunk_offset),
        )
        mdia = box(
            b"mdia",
            full_box(b"mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, RATE, samples, 0x55C4, 0)),
            full_box(b"hdlr", 0, 0, struct.pack(">I", 0), b"soun", bytes(12), b"SoundHandler\0"),
            minf,
        )
        tkhd = full_box(
            b"tkhd",
            0,
            7,  # enabled, in movie, in preview
            struct.pack(">IIIII", 0, 0, 1, 0, ms),
            bytes(8),
            struct.pack(">hhhH", 0, 0, 0x0100, 0),
            UNITY,
            struct.pack(">II", 0, 0),
        )
        mvhd = full_box(
            b"mvhd",
            0,
            0,
            struct.pack(">IIIIIH", 0, 0, 1000, ms, 0x10000, 0x0100),
            bytes(10),
            UNITY,
            bytes(24),
            struct.pack(">I", 2),
        )
        return box(b"moov", mvhd, box(b"trak", tkhd, mdia))

    # The sample data starts 8 bytes into mdat, which follows ftyp; moov comes last (as MediaRecorder writes).
    return ftyp + mdat + moov(len(ftyp) + 8)


class AudioRecorder(App):
    package = PKG
    label = "Audio Recorder"
    main_activity = WELCOME
    icon = "mic"
    icon_color = "#D32F2F"
    version_name = "0.9.89"

    def create_data(self) -> None:
        """The app makes its records folder at its first start."""
        with contextlib.suppress(OSError, PathEscapeError):
            self.device.fs.mkdir(RECORDS, parents=True)

    def screens(self) -> dict[str, ScreenFn]:
        # Past its first run, WelcomeActivity goes straight on to the main screen.
        return {WELCOME: self.main, MAIN: self.main}

    def next_name(self) -> str:
        """Record-<n>: one past the highest number among the records."""
        numbers = [0]
        with contextlib.suppress(OSError, PathEscapeError):
            for name in self.device.fs.listdir(RECORDS):
                m = re.fullmatch(r"Record-(\d+)\.m4a", name)
                if m:
                    numbers.append(int(m.group(1)))
        return f"Record-{max(numbers) + 1}"

    def main(self, ctx: ScreenContext) -> View:
        started = ctx.state.get("recording")
        last = str(ctx.state.get("last", ""))
        fs = self.device.fs
        if last and not fs.exists(f"{RECORDS}/{last}"):
            last = ""  # deleted behind the app's back

        def record() -> None:
            ctx.state["recording"] = ctx.now_ms()

        def stop() -> None:
            seconds = max(1.0, (ctx.now_ms() - int(started or 0)) / 1000)
            name = self.next_name() + EXT
            try:
                fs.mkdir(RECORDS, parents=True)
                fs.write_bytes(f"{RECORDS}/{name}", m4a(seconds))
            except (OSError, PathEscapeError):
                ctx.toast("Failed to save the record")
                return
            ctx.state.pop("recording", None)
            ctx.state["last"] = name

        def discard() -> None:
            ctx.state.pop("recording", None)

        def rename() -> None:
            ctx.state["dialog"] = "rename"
            ctx.set_fields({"name": last.removesuffix(EXT)})
            ctx.focus("name")

        def big_button(rid: str, name: str, desc: str, fn: Callable[[], None]) -> View:
            """The round red button in the middle: Record, or Stop while recording."""
            return IconButton(
                id=rid,
                name=name,
                desc=desc,
                on_click=fn,
                bg="error",
                radius=36,
                width=72,
                height=72,
                tint="on_primary",
            )

        if started is not None:
            elapsed = max(0, ctx.now_ms() - int(started)) // 1000
            status = f"{elapsed // 60:02d}:{elapsed % 60:02d}"
            buttons: list[View] = [
                IconButton(id="btn_record_delete", name="delete", desc="Delete recording", on_click=discard),
                big_button("btn_record_stop", "stop", "Stop recording", stop),
            ]
        else:
            status = "00:00"
            buttons = [big_button("btn_record", "mic", "Record", record)]
        info: list[View] = [Text(id="txt_progress", text=status, size=48, gravity="center")]
        if started is not None:
            info.append(Text(id="txt_record_info", text="Recording…", gravity="center", color="error"))
        elif last:
            name = Text(id="txt_name", text=last.removesuffix(EXT), size=20, on_click=rename)
            edit = IconButton(id="btn_rename", name="edit", desc="Rename", on_click=rename)
            info.append(Row(justify="center", spacing=4, children=[name, edit]))
        screen = Column(
            children=[
                app_bar("Audio Recorder"),
                Spacer(weight=1),
                Column(spacing=8, children=info),
                Spacer(weight=1),
                Row(justify="center", spacing=32, pad=(0, 0, 0, 48), children=buttons),
            ]
        )
        return Stack(bg="surface", children=[screen, *self.rename_dialog(ctx, last)])

    def rename_dialog(self, ctx: ScreenContext, last: str) -> list[View]:
        if ctx.state.get("dialog") != "rename" or not last:
            return []

        def close() -> None:
            ctx.state.pop("dialog", None)

        def save() -> None:
            new = ctx.field("name").strip()
            if not new or "/" in new:
                ctx.toast("Enter a name")
                return
            target = new + EXT
            if target != last:
                fs = self.device.fs
                try:
                    if fs.exists(f"{RECORDS}/{target}"):
                        ctx.toast("A record with this name already exists")
                        return
                    fs.rename(f"{RECORDS}/{last}", f"{RECORDS}/{target}")
                except (OSError, PathEscapeError):
                    ctx.toast("Failed to rename the record")
                    return
                ctx.state["last"] = target
            close()

        ctx.on_back(close)
        field = EditText(id="input_name", key="name", hint="Name", text=ctx.field("name"))
        return [dialog("Rename", [field], [("Cancel", close), ("Save", save)], close)]
