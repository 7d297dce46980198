"""The judge: the exact outcome (state diff) plus named checks (answers, screen), one verdict.

Success requires every required change exactly once, no unexpected change, and every check of
the template's `judge:` tree (typed answers, the screen). Progress comes from the outcome:
required changes made minus unexpected ones, never positive for doing nothing or for harm.
"""

from __future__ import annotations

import inspect
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mgfarm.errors import MgfarmError
from mgfarm.tasks.device import TaskDevice
from mgfarm.tasks.outcome import MatchContext, OutcomeResult
from mgfarm.tasks.outcome import evaluate as evaluate_outcome
from mgfarm.tasks.schema import JudgeNode, TaskInstance
from mgfarm.tasks.state import (
    StateSnapshot,
    StateSpec,
    UnreadableData,
    bounded_rows,
    capture,
    diff,
    open_database,
    pull_within,
)

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

MAX_FILE_BYTES = 16 * 1024 * 1024  # the largest device file a check reads into the trainer's process


@dataclass
class CheckResult:
    """What one check saw: pass or fail, and a sentence a person can act on."""

    ok: bool
    detail: str = ""


@dataclass
class CheckContext:
    """What a check may read: the device (over ADB), the agent's typed answer, the parameters."""

    device: TaskDevice
    answer: dict[str, Any]
    params: dict[str, Any]
    answer_fields: dict[str, str] = field(default_factory=dict)
    state: StateSpec = field(default_factory=StateSpec)  # the declared databases `query` may name
    _dbs: dict[str, sqlite3.Connection | None] = field(default_factory=dict)

    def db_path(self, db: str) -> str:
        """A declared database's device path on this device's profile, or `db` itself when it is a path."""
        return self.state.database(db, "A check", self.device.profile)

    def path(self, path: str) -> str:
        """A device path a template names (on the default profile), on this device's profile."""
        return self.state.path_on(path, self.device.profile)

    def query(self, db: str, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run SQL on a copy of a device database (pulled once per judge, with its -wal), within the
        bounds of the capture's reads; raises UnreadableData for one the judge will not read."""
        path = self.db_path(db)
        if path not in self._dbs:
            self._dbs[path] = open_database(self.device, path)
        conn = self._dbs[path]
        return [] if conn is None else bounded_rows(conn, sql, args)

    def read_file(self, path: str) -> bytes | None:
        """A device file's bytes (None when it does not exist); raises UnreadableData for one over
        MAX_FILE_BYTES or not a regular file, before pulling it."""
        return pull_within(self.device, [path], MAX_FILE_BYTES)[0]

    def close(self) -> None:
        for conn in self._dbs.values():
            if conn is not None:
                conn.close()
        self._dbs.clear()


CheckFn = Callable[..., CheckResult]
CHECK_NAME = "mgfarm_check"  # the attribute `check` marks a verifier function with


def check(name: str) -> Callable[[CheckFn], CheckFn]:
    """Mark a verifier as check `APP.NAME`; it is called as fn(ctx, **args) -> CheckResult.

    Marking registers nothing: the catalog collects the marked functions of the modules it loads
    (`checks_of`).
    """

    def mark(fn: CheckFn) -> CheckFn:
        setattr(fn, CHECK_NAME, name)
        return fn

    return mark


def checks_of(modules: Iterable[ModuleType]) -> dict[str, CheckFn]:
    """The checks the modules define (functions marked by `check`), by name; a name used twice is an error."""
    found: dict[str, CheckFn] = {}
    for module in modules:
        for value in vars(module).values():
            name = getattr(value, CHECK_NAME, None)
            if not callable(value) or not isinstance(name, str):
                continue
            if name in found and found[name] is not value:
                raise MgfarmError(f"check {name} is defined twice ({module.__name__}); rename one.")
            found[name] = value
    return found


def argument_problem(checks: dict[str, CheckFn], name: str, args: dict[str, Any]) -> str | None:
    """Why a check reference in a template is wrong (unknown check, missing or unknown argument)."""
    if name not in checks:
        examples = ", ".join(sorted(checks)[:3])
        return f"unknown check {name!r}; `mgfarm tasks checks` lists them (e.g. {examples})"
    params = list(inspect.signature(checks[name]).parameters.values())[1:]
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    names = {p.name for p in params}
    unknown = [a for a in args if a not in names]
    if unknown and not accepts_any:
        return f"check {name} has no argument {unknown[0]!r}; it takes {', '.join(sorted(names))}"
    missing = [p.name for p in params if p.default is inspect.Parameter.empty and p.name not in args]
    if missing and params[0].kind is not inspect.Parameter.VAR_KEYWORD:
        return f"check {name} needs argument {missing[0]!r}"
    return None


@dataclass
class CheckOutcome:
    """One check of one episode: name, rendered arguments, result, time spent."""

    name: str
    args: dict[str, Any]
    ok: bool
    detail: str
    weight: float
    seconds: float


@dataclass
class JudgeResult:
    """The verdict on one episode."""

    success: bool
    progress: float
    clean: bool
    side_effects: list[str]
    checks: list[CheckOutcome]
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "progress": round(self.progress, 4),
            "clean": self.clean,
            "side_effects": self.side_effects,
            "checks": [vars(c) for c in self.checks],
            "judge_seconds": round(self.seconds, 4),
        }


class CheckRaised(Exception):
    """A check raised on what the device holds (a device hiccup, data shaped as the app never
    writes it): it could not tell, so the verdict fails as a whole, as for unreadable data."""


def run_check(
    checks: dict[str, CheckFn], node: JudgeNode, ctx: CheckContext, render: Callable[[Any], Any]
) -> CheckOutcome:
    """Call one verifier; an exception of its own is CheckRaised (never a failed check: a `not:`
    around it would pay for what it could not read)."""
    args = render(node.args)
    start = time.perf_counter()
    try:
        result = checks[node.check](ctx, **args)
    except (MgfarmError, UnreadableData):
        raise
    except Exception as exc:
        raise CheckRaised(f"{node.check} raised {type(exc).__name__}: {exc}") from exc
    return CheckOutcome(node.check, args, result.ok, result.detail, node.weight, time.perf_counter() - start)


def evaluate(
    checks: dict[str, CheckFn],
    node: JudgeNode,
    ctx: CheckContext,
    render: Callable[[Any], Any],
    out: list[CheckOutcome],
) -> tuple[bool, float]:
    """(success, progress 0..1) of a judge tree over `checks`; appends every leaf's outcome to `out`."""
    if node.op == "check":
        outcome = run_check(checks, node, ctx, render)
        out.append(outcome)
        return outcome.ok, 1.0 if outcome.ok else 0.0
    results = [(evaluate(checks, child, ctx, render, out), child.weight) for child in node.children]
    if node.op == "not":
        ok = not results[0][0][0]
        return ok, 1.0 if ok else 0.0
    if node.op == "any":
        return any(r[0] for r, _ in results), max(r[1] for r, _ in results)
    total = sum(w for _, w in results) or 1.0
    return all(r[0] for r, _ in results), sum(r[1] * w for r, w in results) / total


def outcome_checks(result: OutcomeResult) -> list[CheckOutcome]:
    """One check line per required change, so reports say which were made."""
    lines = []
    for req in result.requirements:
        detail = "; ".join(c.line() for c in req.matched) or "no such change"
        lines.append(CheckOutcome(f"outcome.{req.kind}", req.spec, bool(req.matched), detail, 1.0, 0.0))
    return lines


def feasibility_check(feasible: bool, goal_status: str) -> CheckOutcome:
    """The agent's own verdict on the goal: "infeasible" is right exactly when the goal is."""
    said = goal_status == "infeasible"
    if feasible:
        detail = "the agent called a feasible goal infeasible" if said else "the agent did not give up"
    else:
        detail = (
            "the agent said the goal cannot be done"
            if said
            else f"the agent ended with {goal_status or 'no status'!r}"
        )
    return CheckOutcome("status.feasibility", {"feasible": feasible}, said != feasible, detail, 0.0, 0.0)


def judge_instance(
    catalog: Catalog,
    instance: TaskInstance,
    device: TaskDevice,
    baseline: StateSnapshot | None,
    answer: dict[str, Any] | None = None,
    goal_status: str = "",
) -> JudgeResult:
    """The exact outcome against the baseline, and the template's checks (from `catalog`), as one verdict.

    `goal_status` is how the agent ended ("complete", "infeasible", "" when it ran out of steps): an
    infeasible goal is met only by saying so, and a feasible one is failed by it.
    """
    start = time.perf_counter()
    outcomes: list[CheckOutcome] = [feasibility_check(instance.task.feasible, goal_status)]
    checks_ok = outcomes[0].ok
    if instance.task.judge is not None:
        answers = answer or {}
        ctx = CheckContext(device, answers, instance.params, dict(instance.answer_fields), catalog.state)
        try:
            tree_ok, _ = evaluate(catalog.checks, instance.task.judge, ctx, instance.render, outcomes)
            checks_ok = checks_ok and tree_ok
        except (UnreadableData, CheckRaised) as exc:  # the whole tree fails: no `not:` turns it into a pass
            name = "judge.unreadable" if isinstance(exc, UnreadableData) else "judge.check_raised"
            outcomes.append(CheckOutcome(name, {}, False, str(exc), 1.0, 0.0))
            checks_ok = False
        finally:
            ctx.close()
    if baseline is None:  # no start state: only the checks can speak
        return JudgeResult(
            checks_ok, 1.0 if checks_ok else 0.0, checks_ok, [], outcomes, time.perf_counter() - start
        )
    items = [
        _on_profile(item, catalog.state, device.profile) for item in instance.render(instance.task.outcome)
    ]
    incidental = [str(p) for p in instance.render(instance.task.incidental)] + list(catalog.state.incidental)
    # Times are read in the zone the episode started in: an agent that changes the zone to make a
    # wrong time look right also changes `props`, an unexpected change.
    zone = MatchContext(baseline.timezone)
    result = evaluate_outcome(items, diff(baseline, capture(device, catalog.state)), incidental, zone)
    success = result.success and checks_ok
    if result.requirements:
        progress = 1.0 if success else min(result.progress, 0.99)
    else:
        progress = 1.0 if success else 0.0
    return JudgeResult(
        success=success,
        progress=progress,
        clean=success,
        side_effects=[c.line() for c in result.unexpected],
        checks=outcome_checks(result) + outcomes,
        seconds=time.perf_counter() - start,
    )


def _on_profile(item: Any, state: StateSpec, profile: str) -> Any:
    """An outcome item with its `file` path (named on the default profile) on the device's profile."""
    if isinstance(item, dict) and isinstance(item.get("file"), dict) and "path" in item["file"]:
        return {**item, "file": {**item["file"], "path": state.path_on(str(item["file"]["path"]), profile)}}
    return item
