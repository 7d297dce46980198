"""The adb package's parsers: `host:devices` replies and `avd snapshot list` output."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mgfarm.adb.console import parse_snapshot_list
from mgfarm.adb.server import parse_devices

SERIAL = st.from_regex(r"[A-Za-z0-9.:_-]{1,24}", fullmatch=True)
STATE = st.sampled_from(["device", "offline", "unauthorized", "recovery", "no permissions"])


@given(st.dictionaries(SERIAL, STATE, max_size=8))
def test_devices_reply_round_trips(listing: dict[str, str]) -> None:
    text = "".join(f"{serial}\t{state}\n" for serial, state in listing.items())
    assert parse_devices(text) == listing


@given(st.text(max_size=300))
def test_devices_reply_never_raises(text: str) -> None:
    for serial, state in parse_devices(text).items():
        assert serial and "\n" not in serial and "\n" not in state


def test_snapshot_list_as_the_emulator_prints_it() -> None:
    lines = [
        "List of snapshots present on all disks:",
        "ID        TAG                 VM SIZE                DATE       VM CLOCK",
        "--        golden               57M 2026-03-04 09:30:00   00:00:12.000",
        "--        after-setup          58M 2026-03-04 09:31:00   00:00:40.000",
    ]
    assert parse_snapshot_list(lines) == ["golden", "after-setup"]
    assert parse_snapshot_list(["There is no snapshot available."]) == []


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=60), max_size=12))
def test_snapshot_list_never_raises_and_names_only_rows_after_the_header(lines: list[str]) -> None:
    names = parse_snapshot_list(lines)
    if not any(line.startswith("ID") and "TAG" in line for line in lines):
        assert names == []
    assert all(name and not any(c.isspace() for c in name) for name in names)
