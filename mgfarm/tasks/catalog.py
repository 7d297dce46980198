"""The `Catalog`: task templates, the checks they name, the app data the judge reads, and the apps.

A catalog is built explicitly from its parts (`Catalog.build`; `mgfarm.catalog.load_catalog()` builds
the bundled one) and handed to whatever needs it: setup steps, the judge, the checker, the env and
the CLI. Nothing in it is filled by importing a module, so two catalogs never see each other's
templates and no code depends on something having imported the verifiers first.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from mgfarm.errors import MgfarmError
from mgfarm.tasks.apps import AppTable
from mgfarm.tasks.judge import CheckFn, argument_problem, checks_of
from mgfarm.tasks.schema import TaskTemplate, parse_templates
from mgfarm.tasks.state import DatabaseDecl, EntityDecl, PrefsDecl, StateSpec

SUITES = ("all", "smoke", "train", "test", "heldout")


@dataclass(frozen=True)
class Catalog:
    """Templates by id, checks by name, the declared app data (`state`) and the app table."""

    templates: dict[str, TaskTemplate]
    checks: dict[str, CheckFn]
    state: StateSpec
    apps: AppTable

    @classmethod
    def build(cls, task_dirs: Sequence[Path], verifiers: Iterable[ModuleType], apps: AppTable) -> Catalog:
        """A catalog of the templates in `task_dirs` (*.yaml, in order), checked against the checks and
        databases the `verifiers` modules define.

        A verifier module defines checks (functions marked with `mgfarm.tasks.judge.check`) and may
        declare `DATABASES` (DatabaseDecl), `PREFERENCES` (PrefsDecl), `ENTITIES` (EntityDecl) and
        `INCIDENTAL` (patterns).
        """
        modules = list(verifiers)
        empty = cls({}, checks_of(modules), state_of(modules, apps), apps)
        templates: dict[str, TaskTemplate] = {}
        for folder in task_dirs:
            for path in sorted(folder.glob("*.yaml")):
                for template in empty.parse_file(path):
                    unknown = [a for a in template.apps if a not in apps.apps]
                    if unknown:
                        raise MgfarmError(
                            f"{template.source}: app {unknown[0]!r} is not in the app table; use one of "
                            f"{', '.join(sorted(apps.apps))} or declare it in mgfarm/catalog/apps.yaml."
                        )
                    if template.id in templates:
                        raise MgfarmError(
                            f"{template.source}: task id {template.id} is already defined at "
                            f"{templates[template.id].source}; give it a unique id."
                        )
                    templates[template.id] = template
        return cls(templates, empty.checks, empty.state, apps)

    def parse_file(self, path: Path) -> list[TaskTemplate]:
        """Templates of one YAML file, validated against this catalog's checks."""
        return parse_templates(path, checks=partial(argument_problem, self.checks))

    def get(self, task_id: str) -> TaskTemplate:
        """One template; an unknown id is a user error that suggests `mgfarm tasks list`."""
        if task_id not in self.templates:
            close = [t for t in self.templates if task_id.split(".")[-1] in t]
            hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
            raise MgfarmError(f"Unknown task {task_id!r}{hint}; `mgfarm tasks list` shows the catalog.")
        return self.templates[task_id]

    def suite(self, suite: str = "all") -> list[TaskTemplate]:
        """Templates of a suite: all, smoke, train, test, heldout, an app name, or a named suite."""
        chosen = [t for t in self.templates.values() if t.in_suite(suite) or t.app == suite]
        if not chosen:
            raise MgfarmError(f"Suite {suite!r} has no tasks; use one of {', '.join(SUITES)} or an app name.")
        return chosen

    def select(self, ids: list[str] | None, suite: str = "all") -> list[TaskTemplate]:
        """Templates by explicit ids (glob patterns allowed) or else by suite."""
        if not ids:
            return self.suite(suite)
        chosen: list[TaskTemplate] = []
        for pattern in ids:
            matches = [t for tid, t in self.templates.items() if fnmatch.fnmatchcase(tid, pattern)]
            if not matches:
                self.get(pattern)  # raises with a hint
            chosen.extend(m for m in matches if m not in chosen)
        return chosen


def state_of(modules: Iterable[ModuleType], apps: AppTable) -> StateSpec:
    """The databases, preferences, entities and app-wide incidental patterns the modules declare,
    with the app table that places their paths on a device's profile."""
    databases: dict[str, DatabaseDecl] = {}
    entities: dict[str, EntityDecl] = {}
    incidental: list[str] = []
    prefs: dict[str, PrefsDecl] = {}
    for module in modules:
        _declare(databases, module, "DATABASES", "database")
        _declare(prefs, module, "PREFERENCES", "preferences file")
        entities.update((e.name, e) for e in getattr(module, "ENTITIES", ()))
        incidental += [p for p in getattr(module, "INCIDENTAL", ()) if p not in incidental]
    return StateSpec(databases, entities, tuple(incidental), apps, prefs)


def _declare(into: dict[str, Any], module: ModuleType, constant: str, kind: str) -> None:
    """The declarations a verifier module lists in `constant`, added by name; a name taken is an error."""
    for decl in getattr(module, constant, ()):
        if decl.name in into:
            raise MgfarmError(f"{kind} {decl.name} is declared twice ({module.__name__}); rename one.")
        into[decl.name] = decl
