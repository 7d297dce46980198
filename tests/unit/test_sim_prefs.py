"""An app's SharedPreferences file: what the sim's apps write they read back typed, and a file a
shell wrote (any bytes) reads as the entries it holds, never as an error."""

from __future__ import annotations

import random
from pathlib import Path

from mgfarm.sim.system.prefs import MAX_PREFS_BYTES, read_prefs, write_prefs
from tests.unit.fuzzkit import mutated

VALUES = {"statsUnits": "IMPERIAL", "odd": "<&'\"> \n x", "on": False, "n": -3, "f": 0.25, "tags": ["a", "b"]}


def test_written_preferences_read_back_typed(tmp_path: Path) -> None:
    path = tmp_path / "shared_prefs" / "p.xml"
    write_prefs(path, VALUES)
    assert read_prefs(path) == VALUES
    assert path.read_text().startswith("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>")


def test_a_file_written_by_a_shell_reads_as_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "p.xml"
    path.write_text(
        '<map><int name="a" value="x" /><string>no name</string><long name="b" value="7" />'
        '<float name="c" value="nan" /><boolean name="d" value="yes" /><unknown name="e" /></map>'
    )
    found = read_prefs(path)
    assert {k: v for k, v in found.items() if k != "c"} == {"b": 7, "d": False}
    assert read_prefs(tmp_path / "missing.xml") == {}


def test_any_bytes_read_as_a_mapping(tmp_path: Path) -> None:
    """Fuzz: random bytes, and a valid file with random bytes changed, cut or repeated."""
    path = tmp_path / "p.xml"
    write_prefs(path, VALUES)
    valid = path.read_bytes()
    rng = random.Random(7)
    for _ in range(2000):
        path.write_bytes(mutated(rng, valid))
        assert isinstance(read_prefs(path), dict)


def test_a_file_over_a_megabyte_reads_as_empty(tmp_path: Path) -> None:
    """Apps read their preferences on every frame that shows one; a shell can make the file as large
    as the partition. Such a file reads as one SharedPreferencesImpl could not load."""
    path = tmp_path / "p.xml"
    write_prefs(path, {"statsUnits": "IMPERIAL", "pad": "x" * MAX_PREFS_BYTES})
    assert read_prefs(path) == {}
    write_prefs(path, {"statsUnits": "IMPERIAL", "pad": "x" * (MAX_PREFS_BYTES - 200)})
    assert read_prefs(path)["statsUnits"] == "IMPERIAL"
