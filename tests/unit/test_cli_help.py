"""The CLI documents itself: every command has a summary and an example."""

from __future__ import annotations

from typing import Any

import typer.main
from typer.testing import CliRunner

from mgfarm.cli import app


def leaf_commands() -> list[tuple[list[str], Any]]:
    root = typer.main.get_command(app)
    found: list[tuple[list[str], Any]] = []

    def walk(cmd: Any, path: list[str]) -> None:
        # Typer ships its own click; groups are recognised by their sub-commands.
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            found.append((path, cmd))

    walk(root, [])
    return found


def test_top_level_help_lists_commands_with_summaries() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    root = typer.main.get_command(app)
    assert hasattr(root, "commands")
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        assert name in result.output
        assert cmd.get_short_help_str(), f"`mgfarm {name}` has no summary"


def test_every_command_help_has_an_example() -> None:
    for path, _cmd in leaf_commands():
        result = CliRunner().invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Example" in result.output, f"`mgfarm {' '.join(path)} --help` has no example"


def test_flags_are_not_shown_as_taking_a_value() -> None:
    for path, cmd in leaf_commands():
        result = CliRunner().invoke(app, [*path, "--help"])
        flags = [p for p in cmd.params if getattr(p, "is_flag", False)]
        for flag in flags:
            line = next(ln for ln in result.output.splitlines() if flag.opts[0] in ln)
            assert "<bool>" not in line, (
                f"`mgfarm {' '.join(path)} --help` shows {flag.opts[0]} taking a value"
            )


def test_every_command_that_picks_a_farm_takes_farm() -> None:
    farm_scoped = [
        (path, cmd) for path, cmd in leaf_commands() if any(p.name in ("farm", "name") for p in cmd.params)
    ]
    assert len(farm_scoped) >= 8
    for path, cmd in farm_scoped:
        if path == ["k8s", "render"]:
            continue  # --name there names the Kubernetes objects, not a local farm
        opts = [o for p in cmd.params if p.name in ("farm", "name") for o in p.opts]
        assert "--farm" in opts, f"`mgfarm {' '.join(path)}` selects a farm without --farm"
