"""The package layers: imports run downward only, and nothing but the CLI reaches into the simulator.

Function-level imports count too (hiding an upward import inside a function is still an upward import).
"""

from __future__ import annotations

import ast
from pathlib import Path

import mgfarm

ROOT = Path(mgfarm.__file__).parent

# Lowest first. A module may import from its own layer and from any layer below.
LAYERS: list[set[str]] = [
    {"errors", "shellwords"},  # shellwords: quoting and `content` words, for device and tasks alike
    {"adb", "k8s"},
    {"device"},
    {"farm"},
    {"tasks", "catalog"},  # the engine and the templates and verifiers it loads
    {"snapshots"},  # golden builds apply the tasks' setup steps
    {"env", "wrappers"},
    {"vector", "ray"},
    {"suites"},  # AndroidWorld's tasks and agents on the env's episode loop
    {"bench", "doctor", "parity"},
    {"cli", "mgfarm"},  # `mgfarm` is the package's __init__ (the public names)
]
# Upward imports that exist today, each a debt with its reason; the list may only shrink.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}
SIM_IMPORTERS = {"cli"}  # `mgfarm sim serve`; everything else reaches devices over ADB only


def package_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return "mgfarm" if parts == ("__init__",) else parts[0]


def imports() -> set[tuple[str, str, str]]:
    """(importing package, imported package, file) for every mgfarm import in the source tree."""
    found: set[tuple[str, str, str]] = set()
    for path in ROOT.rglob("*.py"):
        here = package_of(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] == "mgfarm" and len(parts) > 1 and parts[1] != here:
                    found.add((here, parts[1], str(path.relative_to(ROOT))))
    return found


def layer(package: str) -> int:
    for index, members in enumerate(LAYERS):
        if package in members:
            return index
    raise AssertionError(f"package mgfarm.{package} has no layer: add it to LAYERS in {__file__}")


def test_imports_run_downward_only() -> None:
    upward = {
        (src, dst): where
        for src, dst, where in imports()
        if dst != "sim" and src != "sim" and layer(dst) > layer(src)
    }
    new = {edge: where for edge, where in upward.items() if edge not in KNOWN_UPWARD}
    assert not new, f"upward imports (pass the dependency in instead): {new}"
    paid = set(KNOWN_UPWARD) - set(upward)
    assert not paid, f"these debts are paid, remove them from KNOWN_UPWARD: {paid}"


def test_only_the_cli_imports_the_simulator_and_the_simulator_imports_only_errors() -> None:
    edges = imports()
    outside = {(src, where) for src, dst, where in edges if dst == "sim" and src not in SIM_IMPORTERS}
    assert not outside, f"reach devices over ADB, not by importing mgfarm.sim: {outside}"
    sim_uses = {dst for src, dst, _ in edges if src == "sim"}
    assert sim_uses <= {"errors"}, f"the simulator must stand alone: it imports {sim_uses}"
