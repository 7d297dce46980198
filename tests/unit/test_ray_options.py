"""`mgfarm up --ray` hands each node's farm the flags `mgfarm up` takes for one farm."""

from __future__ import annotations

import inspect

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm import api
from mgfarm.ray.commands import farm_options
from mgfarm.snapshots.farm import up


def test_each_node_s_farm_gets_the_profile_and_grpc_flags_given() -> None:
    options = farm_options("sim:1", None, None, None, "256m", "aosp", False)
    assert options == {"image": "sim:1", "memory": "256m", "profile": "aosp", "grpc": False}
    assert farm_options(None, None, None, None, None, None, True) == {"grpc": True}
    # Flags left out stay out: each node's farm takes `up`'s own defaults (android13, gRPC on).
    assert farm_options(None, None, None, None, None) == {}


def test_the_node_farms_accept_every_option_the_head_sends() -> None:
    # The actor calls `up(replicas, backend=..., name=..., **options)`, which passes them to api.up.
    accepted = set(inspect.signature(api.up).parameters) | set(inspect.signature(up).parameters)
    options = farm_options("i", "golden", 5037, 1.0, "1g", "android14", False)
    assert set(options) <= accepted


def test_a_bad_profile_is_refused_before_any_node_starts() -> None:
    with pytest.raises(MgfarmError, match="Unknown device profile 'pixel'"):
        farm_options(None, None, None, None, None, "pixel", None)
