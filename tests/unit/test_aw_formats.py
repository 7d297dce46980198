"""Android 13 output formats that AndroidWorld and android_env parse, against recorded device output.

Each fixture in data/android13/ holds lines as the emulator prints them; the simulated device must
print lines of the same shape (numbers, hashes and the activity names of one run aside).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

DATA = Path(__file__).parent / "data" / "android13"
CONTACTS = "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"


def shape(line: str) -> str:
    """A line with its numbers, hex hashes and activity names replaced: what a parser's regex sees."""
    line = re.sub(r"ComponentInfo\{[^}]*\}", "ComponentInfo{C}", line)
    line = re.sub(r"\b[0-9a-f]{6,8}\b", "H", line)
    line = re.sub(r"(?<=: )[\w.]+/[\w.$]+(?= )", "C", line)
    line = re.sub(r"u0 [\w.]+/[\w.$]+", "u0 C", line)
    line = re.sub(r"[AI]=[\w:./]+", "X=Y", line)
    return re.sub(r"\d+", "N", line.rstrip())


def recorded(name: str) -> list[str]:
    return [line for line in (DATA / name).read_text().splitlines() if line.strip()]


def assert_same_shapes(fixture: str, output: str) -> None:
    ours = {shape(line) for line in output.splitlines()}
    missing = [line for line in recorded(fixture) if shape(line) not in ours]
    assert not missing, f"lines of {fixture} the device does not print in that shape: {missing}"


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("aw"))
    assert dev.run(f"am start -n {CONTACTS}").status == 0
    yield dev
    dev.close()


def test_am_stack_list_matches_android_13(sh: ShellDevice) -> None:
    out = sh.run("am stack list").text
    assert_same_shapes("am_stack_list.txt", out)
    # android_env's current-activity lookup: the last {...} of the one visible=true line.
    visible = sh.run("am stack list | grep -E visible=true").text.splitlines()
    assert len(visible) == 1
    assert re.search(r".*\{(.*)\}", visible[0])[1] == (  # type: ignore[index]
        "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"
    )


def test_am_stack_remove_closes_a_recent_task(tmp_path: Path) -> None:
    dev = ShellDevice(tmp_path)
    dev.run(f"am start -n {CONTACTS}")
    ids = re.findall(r"^      id=(\d+)", dev.run("dumpsys activity recents").text, re.M)
    assert len(ids) == 1
    assert dev.run(f"am stack remove {ids[0]}").status == 0
    assert "id=" not in dev.run("dumpsys activity recents").text.split("Visible recent tasks")[1]
    assert "QuickstepLauncher" in dev.run("dumpsys activity top").text
    assert dev.run("am stack remove 99999").status == 0  # unknown ids are ignored, as on a device
    assert dev.run("am stack remove x").status != 0
    dev.close()


def test_dumpsys_input_gives_frames_and_orientation(sh: ShellDevice) -> None:
    out = sh.run("dumpsys input").text
    assert_same_shapes("dumpsys_input_frames.txt", out)
    # AndroidWorld's get_logical_screen_size / get_physical_frame_boundary regexes
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", out)[0] == ("1080", "2400")
    assert re.findall(r"physicalFrame=\[(\d+), (\d+), (\d+), (\d+)\]", out)[0] == ("0", "0", "1080", "2400")
    assert re.search(r"\s+SurfaceOrientation:\s+.*(\d)", out)[1] == "0"  # type: ignore[index]
    assert sh.run("dumpsys input | grep logicalFrame").text.count("logicalFrame") == 2


def test_dumpsys_window_has_rotation_and_system_windows(sh: ShellDevice) -> None:
    out = sh.run("dumpsys window").text
    assert_same_shapes("dumpsys_window_rotation.txt", out)
    assert re.findall(r"mCurrentRotation=ROTATION_(\d+)", out) == ["0"]
    windows = sh.run("dumpsys window windows").text
    for title in ("StatusBar", "NavigationBar0", "InputMethod", "ImageWallpaper"):
        assert re.search(rf"Window #\d+ Window\{{\w+ u0 [\w.]*{title}\}}:", windows), title
    assert "mCurrentFocus=Window{" in windows and "PeopleActivity}" in windows


def test_dumpsys_activity_parts(sh: ShellDevice) -> None:
    assert_same_shapes("dumpsys_activity_activities.txt", sh.run("dumpsys activity activities").text)
    recents = sh.run("dumpsys activity recents").text
    assert_same_shapes("dumpsys_activity_recents.txt", recents)
    assert "ACTIVITY MANAGER ACTIVITIES" not in recents
    top = sh.run("dumpsys activity top").text
    assert re.match(
        r"TASK \d+:com.google.android.contacts id=\d+ userId=0\n  ACTIVITY " + re.escape(CONTACTS), top
    )


def test_service_call_alarm_sets_the_time_zone(tmp_path: Path) -> None:
    dev = ShellDevice(tmp_path)
    r = dev.run("service call alarm 3 s16 Europe/Paris")
    assert (r.status, r.text) == (0, (DATA / "service_call_alarm.txt").read_text())
    assert dev.run("getprop persist.sys.timezone").text == "Europe/Paris\n"
    assert dev.run("date +%Z").text in ("CET\n", "CEST\n")
    bad = dev.run("service call alarm 3 s16 Mars/Olympus")
    assert (
        "Timezone id is invalid" in bad.text
        and dev.run("getprop persist.sys.timezone").text == "Europe/Paris\n"
    )
    assert dev.run("service check alarm").text == "Service alarm: found\n"
    assert dev.run("service check nope").text == "Service nope: not found\n"
    assert dev.run("service list").text.startswith("Found ")
    assert dev.run("service call nope 1").status != 0
    assert dev.run("service call alarm 3 s16").status != 0
    dev.close()


def test_getprop_is_the_android_13_emulator_image(sh: ShellDevice) -> None:
    listing = sh.run("getprop").text
    for line in recorded("getprop_keys.txt"):
        assert line in listing.splitlines(), line
    assert len(listing.splitlines()) >= 500
    assert sh.run("getprop ro.serialno").text.startswith("EMULATOR")
    assert sh.run("getprop sys.boot_completed").text == "1\n"


def test_pm_list_package_singular_and_ps_columns(sh: ShellDevice) -> None:
    assert sh.run("pm list package").text == sh.run("pm list packages").text
    rows = sh.run("ps -A -o PID,NAME").text.splitlines()
    assert rows[0].split() == ["PID", "NAME"]
    pid = next(line.split()[0] for line in rows if line.endswith(" com.google.android.contacts"))
    assert sh.run("pidof com.google.android.contacts").text == f"{pid}\n"
    assert sh.run("ps -o NOPE").status == 1


def test_call_states_in_telephony_registry(tmp_path: Path) -> None:
    from mgfarm.sim.console_cmds import emulator_command

    dev = ShellDevice(tmp_path)

    def state() -> str:
        return re.search(r"mCallState=(\d)", dev.run("dumpsys telephony.registry").text)[1]  # type: ignore[index]

    assert state() == "0"
    assert emulator_command(dev.device, "gsm call 5551234") == "OK\r\n"
    assert state() == "1"
    assert "InCallActivity" in dev.run("dumpsys activity top").text
    assert emulator_command(dev.device, "gsm accept 5551234") == "OK\r\n"
    assert_same_shapes("dumpsys_telephony_registry_offhook.txt", dev.run("dumpsys telephony.registry").text)
    dev.run("input keyevent KEYCODE_ENDCALL")
    assert state() == "0"
    assert "type=1" in dev.run("content query --uri content://call_log/calls").text  # an answered call
    dev.run("am start -a android.intent.action.CALL -d tel:5550000")
    assert state() == "2"
    assert emulator_command(dev.device, "gsm list") == "outbound to  5550000 : active\r\nOK\r\n"
    assert emulator_command(dev.device, "gsm cancel 5550000") == "OK\r\n"
    assert state() == "0"
    dev.close()


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=80))
def test_console_commands_answer_any_line(line: str) -> None:
    """Any line gets OK or one KO sentence, never an exception (the console faces agents)."""
    from mgfarm.sim.console_cmds import emulator_command

    dev = fuzz_device().device
    for prefix in ("gsm ", "sms send ", "geo fix ", "power ", "network ", ""):
        reply = emulator_command(dev, prefix + line)
        if reply is not None:
            assert reply.endswith("OK\r\n") or (reply.startswith("KO: ") and reply.count("\r\n") == 1)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="abc/*-.;= ", max_size=12), max_size=6))
def test_service_and_am_arguments_never_crash(args: list[str]) -> None:
    from shlex import quote

    words = " ".join(quote(a) for a in args)
    for command in ("service call alarm 3 ", "service ", "am stack ", "am start -t ", "ps -o "):
        r = fuzz_device().run(command + words)
        assert r.status in (0, 1, 10, 255), (command + words, r.status, r.error)


_FUZZ: list[ShellDevice] = []


def fuzz_device() -> ShellDevice:
    """One booted device shared by the Hypothesis tests (booting one per example would take minutes)."""
    if not _FUZZ:
        import tempfile

        _FUZZ.append(ShellDevice(Path(tempfile.mkdtemp(prefix="aw-fuzz-"))))
    return _FUZZ[0]


def test_an_agent_dialing_in_a_loop_holds_at_most_seven_calls(tmp_path: Path) -> None:
    dev = ShellDevice(tmp_path)
    r = dev.run("for i in 1 2 3 4 5 6 7 8 9; do am start -a android.intent.action.CALL -d tel:555000$i; done")
    assert r.status == 0
    assert len(dev.device.services.telephony.calls) == 7
    dev.close()


def test_android14_profile_props_and_activity_dump(tmp_path: Path) -> None:
    from mgfarm.sim.system.props import profile_overrides

    dev = ShellDevice(tmp_path)
    assert profile_overrides("android13") == {}
    dev.device.props.values.update(
        profile_overrides("android14")
    )  # what `sim serve --profile android14` sets
    assert dev.run("getprop ro.build.version.sdk").text == "34\n"
    assert dev.run("getprop ro.build.fingerprint").text == (
        "google/sdk_gphone64_x86_64/emu64xa:14/UE1A.230829.036.A1/11228894:userdebug/dev-keys\n"
    )
    dev.run(f"am start -n {CONTACTS}")
    dump = dev.run("dumpsys activity activities").text
    assert "    topResumedActivity=ActivityRecord{" in dump and "mResumedActivity:" not in dump
    with pytest.raises(ValueError, match="unknown device profile"):
        profile_overrides("android99")
    dev.close()
