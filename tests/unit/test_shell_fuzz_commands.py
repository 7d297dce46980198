"""Every registered command, fed arbitrary arguments, answers with a status and never an internal error."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.registry import COMMANDS
from tests.unit.shellkit import ShellDevice

# Waiting or long-running commands, and the u2 server launcher (another part's), are left out.
SKIP = {"sleep", "app_process", "app_process64", "logcat", "sh", "yes", "seq"}  # yes, seq: endless by design
NAMES = sorted(n for n in COMMANDS if n not in SKIP)
WORDS = (
    "-a -l -r -f -n -c -d -e -p -s -3 -W -R -i -v -o -E -q -x -1 --uri --where --bind --projection --sort "
    "--es --ei --ez --user 0 1 -1 10 99999999999999 abc /sdcard /sdcard/x /nope .. / global system secure "
    "wifi_on content://settings/global content://x a:s:b a:i:x list packages get put delete start force-stop "
    "broadcast tap swipe text keyevent size density reset dump 1x2 x %s +%s @1 com.android.settings "
    "com.android.settings/.Settings enable disable set path clear install uninstall grant name value ' = * "
    "-name -type f -maxdepth -exec {} ; window activity display battery package top "
    "bs=1k count=2 skip=1 seek=1 of=/sdcard/x if=/sdcard/x status=none conv=notrunc 5k +1 0.1 1m -w -u "
    "-9 -KILL -STOP -L -P 4242 900 -- -lf"
)
VOCAB = [*WORDS.split(" "), "select 1", "create table"]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("fuzz"))
    yield dev
    dev.close()


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    args=st.lists(st.one_of(st.sampled_from(VOCAB), st.text(max_size=8)), max_size=5),
)
def test_commands_survive_arbitrary_arguments(sh: ShellDevice, name: str, args: list[str]) -> None:
    r = sh.run(" ".join(shlex.quote(a) for a in [name, *args]))
    assert 0 <= r.status <= 255
    assert b"internal error" not in r.err, r.error
