"""What a device sends, read by the trainer's side: every parser of device output returns, or raises
MgfarmError (one sentence for the episode's error), whatever the bytes. A device is hostile: a root
shell on an emulator can replace the very binaries whose output these read.

Each parser gets a valid sample mutated at random (bytes changed, cut, spliced, a digit run grown
past Python's 4,300-digit int limit, a made-up encoding declared) and random text."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import pytest

from mgfarm.adb.console import parse_snapshot_list
from mgfarm.adb.server import parse_devices
from mgfarm.device import parsing
from mgfarm.device.framebuffer import CHANNELS, HEADER, MAGIC, parse_header, parse_reply
from mgfarm.device.ui import parse_hierarchy
from mgfarm.errors import MgfarmError
from mgfarm.tasks.state import listed_files, parse_stats, parse_sums, parse_times, prefs_table, shared_table

DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="Save" resource-id="com.a:id/save" class="android.widget.Button" '
    'package="com.a" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" '
    'focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" '
    'selected="false" bounds="[10,20][300,140]" /></hierarchy>'
)
SAMPLES: list[tuple[str, Callable[[str], Any], str]] = [
    ("ui dump", parse_hierarchy, DUMP),
    ("content query", parsing.parse_content_rows, "Row: 0 _id=1, name=Ann, phone=NULL\nRow: 1 _id=2, name=B"),
    ("content reply", parsing.content_reply, "Row: 0 _id=1, name=Ann\nRow: 1 _id=2, name=B"),
    ("sqlite3", parsing.parse_sqlite_rows, "1|Ann|\n2|Bo|x"),
    ("dumpsys window", parsing.parse_current_focus, "mCurrentFocus=Window{1a2b u0 com.a/com.a.Main}"),
    (
        "dumpsys activity",
        parsing.parse_resumed_activity,
        "mResumedActivity: ActivityRecord{1 u0 com.a/.Main t1}",
    ),
    ("md5sum", parsing.parse_md5sum, "d41d8cd98f00b204e9800998ecf8427e  /sdcard/a"),
    (
        "frame reply",
        lambda t: parse_reply(t.encode("utf-8", "surrogateescape")),
        "frame 12 1080 2400 " + "a" * 32 + "\n",
    ),
    (
        "frame header",
        lambda t: parse_header(t.encode("latin-1", "replace"), 1080, 2400),
        HEADER.pack(MAGIC, 2, 1080, 2400, CHANNELS, b"s" * 16).decode("latin-1"),
    ),
    (
        "preferences",
        lambda t: prefs_table(t.split("\n")),
        '<map><string name="a">b</string><int name="n" value="3" /></map>',
    ),
    ("stat", lambda t: parse_stats(t.split("\n")), "4096 regular file /data/data/a/databases/x.db"),
    (
        "sha1sum",
        lambda t: parse_sums(t.split("\n")),
        "a" * 40 + "  /sdcard/a\nsha1sum: /sdcard/b: No such file or directory",
    ),
    (
        "ls -lR",
        lambda t: listed_files(t.split("\n")),
        "/storage/emulated/0/Download:\ntotal 8\n-rw-rw---- 1 root everybody 5 2026-03-04 12:00 a.txt\n",
    ),
    (
        "stat times",
        lambda t: parse_times(t.split("\n")),
        "2026-03-04 12:00:01.5 +0100 2026-03-04 12:00:01.500000000 +0100 /storage/emulated/0/a.mp4",
    ),
    (
        "shared storage",
        lambda t: shared_table(dict.fromkeys(("files", "shared_sums"), t.split("\n"))),
        "/storage/emulated/0/Movies:\n-rw-rw---- 1 root everybody 300000 2026-03-04 12:00 a.mp4\n"
        "2026-03-04 12:00:01.5 +0100 2026-03-04 12:00:01.500000000 +0100 /storage/emulated/0/Movies/a.mp4",
    ),
    ("avd snapshot list", lambda t: parse_snapshot_list(t.split("\n")), "ID TAG SIZE\n--  golden 1M"),
    ("host:devices", parse_devices, "emulator-5554\tdevice\nemulator-5556\toffline"),
]


def mutate(rng: random.Random, text: str) -> str:
    data = list(text)
    for _ in range(rng.randrange(1, 5)):
        at = rng.randrange(len(data) + 1)
        roll = rng.random()
        if roll < 0.3 and data:
            data[min(at, len(data) - 1)] = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x10FFFF)]))
        elif roll < 0.5:
            data[at:] = list(text[rng.randrange(len(text)) :])
        elif roll < 0.7:
            data[at:at] = "9" * rng.choice([5, 4400, 20000])  # past int()'s digit limit
        elif roll < 0.8:
            data[at:at] = list(rng.choice(["\n", "<", ">", '"', "'", "&amp;", "&#0;", "<![CDATA[", "\x00"]))
        elif roll < 0.9:
            data[0:0] = list(
                f"<?xml version='1.0' encoding='{rng.choice(['utf-f', 'latin-1', 'utf-16', 'x'])}'?>"
            )
        else:
            del data[at : at + rng.randrange(1, 30)]
    return "".join(data)


@pytest.mark.parametrize(("what", "parse", "sample"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_device_output_is_read_or_refused_in_one_sentence(
    what: str, parse: Callable[[str], Any], sample: str
) -> None:
    parse(sample)  # the sample itself reads
    rng = random.Random(what)
    for _ in range(400):
        text = (
            mutate(rng, sample)
            if rng.random() < 0.9
            else "".join(chr(rng.randrange(1, 0x3000)) for _ in range(80))
        )
        with contextlib.suppress(MgfarmError):  # refused in one sentence: fine; anything else fails
            parse(text)
