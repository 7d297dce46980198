"""YAML loading that remembers the line of every key and list item, so errors can point at them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from mgfarm.errors import MgfarmError

Loc = tuple[str | int, ...]


class LineMap:
    """Line numbers (1-based) of the nodes of one YAML document, by path of keys and indexes."""

    def __init__(self, lines: dict[Loc, int]) -> None:
        self.lines = lines

    def line_of(self, loc: Loc) -> int:
        """The line of `loc`, or of its nearest ancestor that has one."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return 1


def _construct(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> Any:
    lines.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, (*loc, "__key__"), {})
            lines[(*loc, key)] = key_node.start_mark.line + 1
            result[key] = _construct(value_node, (*loc, key), lines)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, (*loc, i), lines) for i, item in enumerate(node.value)]
    return _scalar(node)


def _scalar(node: yaml.Node) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()


def load_with_lines(path: Path) -> tuple[Any, LineMap]:
    """Parse one YAML file; YAML syntax errors become a MgfarmError naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark else 1
        raise MgfarmError(f"{path}:{line}: invalid YAML ({exc.problem}); fix the syntax there.") from exc
    except OSError as exc:
        raise MgfarmError(f"Cannot read {path}: {exc.strerror}; check the path.") from exc
    lines: dict[Loc, int] = {}
    if node is None:
        return None, LineMap(lines)
    return _construct(node, (), lines), LineMap(lines)
