"""`content --bind` as AOSP's Content.java parses it, and the one encoder setup steps and Device share."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.shellwords import content_bind
from mgfarm.sim.shell.data_cmd import parse_binding


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        ("c:b:true", 1),
        ("c:b:TRUE", 1),
        ("c:b:1", 0),
        ("c:b:yes", 0),
        ("c:i:-5", -5),
        ("c:l:1772561520000", 1772561520000),
    ],
)
def test_bindings_read_as_a_device_reads_them(spec: str, value: int) -> None:
    # Boolean.parseBoolean("1") is false on a device: an encoder that writes b:1 stores false.
    assert parse_binding(spec) == ("c", value)


@pytest.mark.parametrize(
    "spec", ["c:i:1772561520000", "c:i:1_000", "c:l: 5", "c:i:", "c:l:9223372036854775808"]
)
def test_bindings_a_device_refuses_are_refused(spec: str) -> None:
    with pytest.raises(Exception, match="Invalid binding value"):
        parse_binding(spec)


@given(st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=20), st.none()))
def test_the_encoder_round_trips_through_the_devices_parser(value: object) -> None:
    (spec,) = shlex.split(content_bind("col", value))
    column, parsed = parse_binding(spec)
    assert column == "col"
    assert parsed == (int(value) if isinstance(value, bool) else value)
