"""Action schema validation, shell quoting and the AOSP output parsers (no device needed)."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.adb.console import parse_snapshot_list
from mgfarm.device.actions import Action, ActionError, parse_action
from mgfarm.device.device import q
from mgfarm.device.parsing import (
    parse_content_rows,
    parse_current_focus,
    parse_md5sum,
    parse_resumed_activity,
    parse_sqlite_rows,
)
from mgfarm.device.ui import parse_hierarchy
from mgfarm.tasks.agents import ChatAgent
from mgfarm.wrappers import NormalizedCoords

HOSTILE = [
    "'; rm -rf /data; echo '",
    '"$(reboot)"',
    "`id`",
    "a && touch /sdcard/pwned",
    "x | sh",
    "$HOME ${PATH} $?",
    "back\\slash 'single' \"double\"",
    "new\nline",
    "semi;colon > /sdcard/out",
    "",
    "emoji ☃ ü",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_quoting_round_trips_hostile_text_through_a_posix_shell(text: str) -> None:
    out = subprocess.run(["sh", "-c", f"printf %s {q(text)}"], capture_output=True, text=True, check=True)
    assert out.stdout == text


@given(st.text(max_size=40))
@settings(max_examples=60, deadline=None)
def test_quoting_never_splits_or_expands(text: str) -> None:
    if "\x00" in text:
        return  # argv cannot carry NUL on any OS
    out = subprocess.run(["sh", "-c", f"printf %s {q(text)}"], capture_output=True, check=True)
    assert out.stdout.decode("utf-8", "surrogateescape") == text


def test_valid_actions_parse_from_dicts_and_json() -> None:
    assert parse_action({"action_type": "click", "x": 10, "y": 20}).x == 10
    assert parse_action('{"action_type": "click", "index": 3}').index == 3
    a = parse_action({"action_type": "input_text", "text": "Ada", "index": 1, "clear_text": True})
    assert a.clear_text and a.text == "Ada"
    assert parse_action({"action_type": "scroll", "direction": "down"}).direction == "down"
    assert parse_action({"action_type": "status", "goal_status": "infeasible"}).goal_status == "infeasible"
    assert parse_action({"action_type": "open_app", "app_name": "Contacts"}).app_name == "Contacts"
    assert isinstance(parse_action(Action(action_type="navigate_home")), Action)
    assert parse_action({"action_type": "click", "index": "4"}).index == 4  # AndroidWorld allows str
    assert parse_action({"action_type": "keyboard_enter", "keycode": "KEYCODE_TAB"}).keycode == "KEYCODE_TAB"
    assert parse_action({"action_type": "unknown"}).action_type == "unknown"


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"action_type": "fly"}, "action_type"),
        ({"action_type": "click"}, "needs x and y"),
        ({"action_type": "click", "x": 1}, "both x and y"),
        ({"action_type": "scroll"}, "direction"),
        ({"action_type": "scroll", "direction": "sideways"}, "direction"),
        ({"action_type": "input_text"}, "needs text"),
        ({"action_type": "open_app"}, "app_name"),
        ({"action_type": "status", "goal_status": "done"}, "goal_status"),
        ({"action_type": "click", "index": -1}, "index"),
        ({"action_type": "click", "x": 1, "y": 2, "bogus": 1}, "bogus"),
        ({"action_type": "click", "x": 1, "y": 2, "index": 0}, "not both"),
        ({"action_type": "keyboard_enter", "keycode": "66; reboot"}, "keycode"),
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (42, "JSON object"),
        pytest.param(
            '{"action_type": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply", id="deep"
        ),
    ],
)
def test_invalid_actions_raise_one_clear_sentence(raw: object, fragment: str) -> None:
    with pytest.raises(ActionError) as err:
        parse_action(raw)  # type: ignore[arg-type]
    message = str(err.value)
    assert fragment in message
    assert "\n" not in message


def test_content_rows_keep_commas_inside_values_when_projection_known() -> None:
    out = "Row: 0 _id=1, display_name=Doe, Jane, number=555\nRow: 1 _id=2, display_name=Bo, number=NULL\n"
    rows = parse_content_rows(out, ["_id", "display_name", "number"])
    assert rows == [
        {"_id": "1", "display_name": "Doe, Jane", "number": "555"},
        {"_id": "2", "display_name": "Bo", "number": None},
    ]
    assert parse_content_rows("No result found.\n") == []
    assert parse_content_rows("Row: 0 name=wifi_on, value=1") == [{"name": "wifi_on", "value": "1"}]


def test_sqlite_md5_snapshot_and_dumpsys_parsers() -> None:
    assert parse_sqlite_rows("1|Ada|\n2|Bo|x\n") == [["1", "Ada", ""], ["2", "Bo", "x"]]
    assert parse_md5sum("d41d8cd98f00b204e9800998ecf8427e  /data/local/tmp/u2.jar") == (
        "d41d8cd98f00b204e9800998ecf8427e"
    )
    lines = [
        "List of snapshots present on all disks:",
        "ID        TAG                 VM SIZE                DATE       VM CLOCK",
        "--        golden                 1.2M 2026-01-01 00:00:00   00:00:00.000",
    ]
    assert parse_snapshot_list(lines) == ["golden"]
    focus = (
        "  mCurrentFocus=Window{1a2b3c u0 "
        "com.google.android.contacts/com.android.contacts.activities.PeopleActivity}"
    )
    assert parse_current_focus(focus) == (
        "com.google.android.contacts",
        "com.android.contacts.activities.PeopleActivity",
    )
    resumed = "    mResumedActivity: ActivityRecord{9f u0 com.android.settings/.Settings t12}"
    assert parse_resumed_activity(resumed) == ("com.android.settings", "com.android.settings.Settings")


def test_hierarchy_lists_meaningful_nodes_with_flags_and_bounds() -> None:
    xml = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" '
        'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" '
        'focusable="false" focused="false" scrollable="true" long-clickable="false" password="false" '
        'selected="false" bounds="[0,0][1080,2400]">'
        '<node index="0" text="Save" resource-id="p:id/save" class="android.widget.Button" package="p" '
        'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" '
        'focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" '
        'selected="false" bounds="[100,200][300,260]"/>'
        '<node index="1" text="" resource-id="" class="android.widget.LinearLayout" package="p" '
        'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" '
        'focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" '
        'selected="false" bounds="[0,0][10,10]"/>'
        '<node index="2" text="Name" resource-id="p:id/name" class="android.widget.EditText" package="p" '
        'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" '
        'focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" '
        'selected="false" bounds="[0,300][1080,400]"/>'
        "</node></hierarchy>"
    )
    elements = parse_hierarchy(xml)
    assert [e.index for e in elements] == [0, 1, 2]
    assert elements[0].scrollable
    save = elements[1]
    assert (save.text, save.resource_id, save.clickable) == ("Save", "p:id/save", True)
    assert save.center == (200, 230)
    assert elements[2].editable and elements[2].focused
    assert elements[2].to_dict()["bounds"] == [0, 300, 1080, 400]


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_png_decoding_matches_pillow_for_every_mode(mode: str) -> None:
    import io

    import numpy as np
    from PIL import Image

    from mgfarm.device.device import DeviceError, decode_png_rgb

    rng = np.random.default_rng(0)
    channels = {"RGB": 3, "RGBA": 4, "L": 1}[mode]
    raw = rng.integers(0, 256, size=(40, 30, channels), dtype=np.uint8)
    image = Image.fromarray(raw[:, :, 0] if channels == 1 else raw, mode)
    buf = io.BytesIO()
    image.save(buf, "PNG")
    pixels = decode_png_rgb(buf.getvalue(), "emulator-5554")
    assert pixels.shape == (40, 30, 3) and pixels.dtype == np.uint8
    assert (pixels == np.asarray(image.convert("RGB"))).all()
    with pytest.raises(DeviceError, match="emulator-5554"):
        decode_png_rgb(b"/system/bin/sh: screencap: not found", "emulator-5554")


def test_a_screenshot_claiming_a_size_past_any_screen_is_refused_before_decoding() -> None:
    """A PNG names its size in its header and a decoder allocates that first: 100,000 squared
    pixels from a few hundred bytes would take 30 GB of the trainer's memory."""
    import struct
    import zlib

    from mgfarm.device.device import DeviceError, decode_png_rgb

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
    with pytest.raises(DeviceError, match="100000x100000 image, larger than any screen"):
        decode_png_rgb(bomb + chunk(b"IEND", b""), "emulator-5554")


def test_json_nested_past_the_decoders_depth_from_a_policy_is_no_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A policy writes anything: an action string, or a chat model's reply, of JSON nested deeper
    than the decoder goes raised RecursionError out of the coordinate wrapper and the chat agent."""
    deep = "[" * 100_000
    wrapper = object.__new__(NormalizedCoords)  # its action() reads nothing of the env
    assert wrapper.action(deep) == deep  # passed on unchanged: the env refuses it in one sentence
    with pytest.raises(ActionError):
        parse_action(deep)
    monkeypatch.setenv("MGFARM_LLM_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("MGFARM_LLM_MODEL", "m")
    agent = ChatAgent()
    agent.reset("goal", {})
    monkeypatch.setattr(agent, "_complete", lambda messages: "{" + '"a": ' * 100_000 + "1" + "}" * 100_000)
    assert agent.act({"goal": "goal", "ui_elements": []}) == {"action_type": "wait"}
