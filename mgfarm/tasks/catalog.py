"""The task catalog: every template under mgfarm/catalog/tasks/*.yaml (or $MGFARM_TASKS), by id."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from mgfarm.errors import MgfarmError
from mgfarm.tasks.judge import argument_problem
from mgfarm.tasks.schema import TaskTemplate, parse_templates

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog" / "tasks"
SUITES = ("all", "smoke", "train", "test")


def catalog_dirs() -> list[Path]:
    """The bundled catalog, plus folders named in $MGFARM_TASKS (os.pathsep-separated)."""
    extra = [Path(p) for p in os.environ.get("MGFARM_TASKS", "").split(os.pathsep) if p]
    for folder in extra:
        if not folder.is_dir():
            raise MgfarmError(
                f"$MGFARM_TASKS names {folder}, which is not a folder; fix or unset MGFARM_TASKS."
            )
    return [CATALOG_DIR, *extra]


def load_file(path: Path) -> list[TaskTemplate]:
    """Templates of one YAML file, validated against the registered checks."""
    return parse_templates(path, checks=argument_problem)


@cache
def _load(dirs: tuple[Path, ...]) -> dict[str, TaskTemplate]:
    templates: dict[str, TaskTemplate] = {}
    for folder in dirs:
        for path in sorted(folder.glob("*.yaml")):
            for template in load_file(path):
                if template.id in templates:
                    raise MgfarmError(
                        f"{template.source}: task id {template.id} is already defined at "
                        f"{templates[template.id].source}; give it a unique id."
                    )
                templates[template.id] = template
    return templates


def all_tasks() -> dict[str, TaskTemplate]:
    """Every template, by id (loaded once per process)."""
    return _load(tuple(catalog_dirs()))


def get_task(task_id: str) -> TaskTemplate:
    """One template; an unknown id is a user error that suggests `mgfarm tasks list`."""
    tasks = all_tasks()
    if task_id not in tasks:
        close = [t for t in tasks if task_id.split(".")[-1] in t]
        hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
        raise MgfarmError(f"Unknown task {task_id!r}{hint}; `mgfarm tasks list` shows the catalog.")
    return tasks[task_id]


def list_tasks(suite: str = "all") -> list[TaskTemplate]:
    """Templates of a suite: all, smoke, train, test, an app name, or a named suite."""
    tasks = list(all_tasks().values())
    chosen = [t for t in tasks if t.in_suite(suite) or t.app == suite]
    if not chosen:
        raise MgfarmError(f"Suite {suite!r} has no tasks; use one of {', '.join(SUITES)} or an app name.")
    return chosen


def select(ids: list[str] | None, suite: str = "all") -> list[TaskTemplate]:
    """Templates by explicit ids (glob patterns allowed) or else by suite."""
    if not ids:
        return list_tasks(suite)
    import fnmatch

    tasks = all_tasks()
    chosen: list[TaskTemplate] = []
    for pattern in ids:
        matches = [t for tid, t in tasks.items() if fnmatch.fnmatchcase(tid, pattern)]
        if not matches:
            get_task(pattern)  # raises with a hint
        chosen.extend(m for m in matches if m not in chosen)
    return chosen
