"""The simulator's drawing toolkit stands alone: `ui/` draws views and knows no apps or windows.

Apps build view trees with `ui/`; the window manager (`system/windows.py`) composes the apps' trees
with it. A ui module importing either would close a cycle. Function-level imports count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mgfarm.sim.ui

UI = Path(mgfarm.sim.ui.__file__).parent


def sim_imports(path: Path) -> set[str]:
    """The mgfarm.sim modules that one source file imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("mgfarm.sim")}


def test_the_ui_toolkit_imports_only_itself() -> None:
    outside = {
        f"{path.relative_to(UI.parent)}: {name}"
        for path in sorted(UI.rglob("*.py"))
        for name in sim_imports(path)
        if not (name == "mgfarm.sim.ui" or name.startswith("mgfarm.sim.ui."))
    }
    assert not outside, f"ui/ must not import apps, the window manager or other sim modules: {outside}"
