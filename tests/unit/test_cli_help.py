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
