"""What the task CLI commands do, as plain functions returning results and rich renderables.

The commands that play episodes (eval, run-task, `tasks check`) are in `mgfarm.env.evaluate`: they
run on `MobileEnv`s, a layer above the tasks.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mgfarm.errors import MgfarmError
from mgfarm.tasks import checker, report
from mgfarm.tasks.catalog import Catalog
from mgfarm.tasks.jobs import EpisodeResult
from mgfarm.tasks.schema import TaskTemplate


def tasks_table(templates: list[TaskTemplate]) -> Table:
    """id, level, split, kind and the goal drawn for seed 0 (`tasks show --seed N` draws others)."""
    table = Table(title=f"{len(templates)} task templates (goals drawn for seed 0)")
    table.add_column("id", no_wrap=True)
    for col in ("level", "split", "kind"):
        table.add_column(col)
    table.add_column("goal", overflow="fold")
    for t in templates:
        table.add_row(t.id, t.difficulty, t.split, t.kind, listed_goal(t))
    table.caption = stats_summary(templates)
    return table


STAT_COLUMNS = (
    "templates",
    "operate",
    "query",
    "infeasible",
    "cross-app",
    "L1",
    "L2",
    "L3",
    "L4",
    "train",
    "test",
    "heldout",
)
STAT_HEADERS = ("n", "op", "qry", "inf", "x-app", "L1", "L2", "L3", "L4", "train", "test", "held")


def catalog_stats(templates: list[TaskTemplate]) -> dict[str, dict[str, int]]:
    """Counts per app (the app a template's id names) and in all: kind, cross-app, level and split."""
    rows: dict[str, dict[str, int]] = {}
    for t in sorted(templates, key=lambda t: t.id):
        for key in (t.app, "all"):
            row = rows.setdefault(key, dict.fromkeys(STAT_COLUMNS, 0))
            row["templates"] += 1
            row[t.kind] += 1
            row["cross-app"] += len(set(t.apps)) > 1
            row[t.difficulty] += 1
            row[t.split] += 1
    return rows


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def stats_summary(templates: list[TaskTemplate]) -> str:
    """One paragraph: the totals the catalog's goals are stated in."""
    total = catalog_stats(templates).get("all", dict.fromkeys(STAT_COLUMNS, 0))
    n = max(total["templates"], 1)
    few = sum(t.phrasings < 3 for t in templates)
    return (
        f"{total['templates']} templates over {plural(len({t.app for t in templates}), 'app')} "
        f"({len({a for t in templates for a in t.apps})} apps used); {total['cross-app']} cross-app, "
        f"{total['query']} queries, {total['L3'] + total['L4']} at L3/L4; split train "
        f"{100 * total['train'] // n}% / test {100 * total['test'] // n}% / heldout "
        f"{100 * total['heldout'] // n}%; {few} with fewer than 3 phrasings."
    )


def stats_table(templates: list[TaskTemplate]) -> Table:
    """`mgfarm tasks stats`: one row per app and a total row (op: operate, qry: query, inf: infeasible,
    x-app: more than one app, held: heldout)."""
    table = Table(
        title=stats_summary(templates), title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0)
    )
    table.caption = (
        "op: operate, qry: query (typed answer), inf: infeasible on purpose, x-app: two or more apps"
    )
    table.add_column("app", no_wrap=True)
    for col in STAT_HEADERS:
        table.add_column(col, justify="right", no_wrap=True)
    rows = catalog_stats(templates)
    for app, row in rows.items():
        if app != "all":
            table.add_row(app, *(str(row[c]) for c in STAT_COLUMNS))
    if "all" in rows:
        table.add_row("[b]all[/b]", *(f"[b]{rows['all'][c]}[/b]" for c in STAT_COLUMNS))
    return table


def stats_markdown(templates: list[TaskTemplate]) -> str:
    """The same table as Markdown, for the README."""
    rows = catalog_stats(templates)
    lines = [stats_summary(templates), "", "| app | " + " | ".join(STAT_COLUMNS) + " |"]
    lines.append("|---|" + "---:|" * len(STAT_COLUMNS))
    for app, row in [*((a, r) for a, r in rows.items() if a != "all"), ("**all**", rows.get("all", {}))]:
        lines.append(f"| {app} | " + " | ".join(str(row.get(c, 0)) for c in STAT_COLUMNS) + " |")
    return "\n".join(lines)


def listed_goal(template: TaskTemplate) -> str:
    """The goal as `tasks list` shows it: drawn for seed 0, since phrasings are parameters too."""
    return template.instantiate(0).goal


def show_task(catalog: Catalog, task_id: str, seed: int) -> dict[str, Any]:
    """A template of `catalog` with one seed's parameters and filled goal, for `tasks show`."""
    template = catalog.get(task_id)
    instance = template.instantiate(seed)
    data = template.model_dump(exclude={"judge", "outcome"}, exclude_defaults=True)
    data["outcome"] = instance.render(template.outcome)
    if template.judge is not None:
        data["judge"] = [f"{leaf.check} {instance.render(leaf.args)}" for leaf in template.judge.leaves()]
    data["seed"] = seed
    data["params_drawn"] = instance.params
    data["goal_filled"] = instance.goal
    data["max_steps"] = instance.max_steps
    return data


def checks_table(catalog: Catalog) -> Table:
    """The catalog's checks and their one-line docs."""
    table = Table(title="checks")
    table.add_column("name")
    table.add_column("what it verifies")
    for name, fn in sorted(catalog.checks.items()):
        table.add_row(name, (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else "")
    return table


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("ok {task.fields[ok]}"),
        TimeElapsedColumn(),
        transient=False,
    )


def check_matrix_table(result: checker.Matrix) -> Table:
    """One line per template, one column per adversary group: ok/played (n/a episodes left out)."""
    table = Table(title="judge check: oracle and alternatives accepted, every adversary rejected")
    table.add_column("task", no_wrap=True)
    groups = [g for g in checker.GROUPS if any(g in row.cells for row in result.rows)]
    for group in groups:
        table.add_column(checker.SHORT.get(group, group), justify="center", no_wrap=True)
    for row in result.rows:
        cells = []
        for group in groups:
            if group not in row.cells:
                cells.append("-")
                continue
            ok, total = row.cells[group]
            colour = "green" if ok == total else "red"
            cells.append(f"[{colour}]{ok}/{total}[/]")
        table.add_row(row.task_id, *cells)
    return table


def check_counts(seeds: list[int], replicas: int | None) -> None:
    """Refuse a run with no episodes or a device count below one, before any device work."""
    if not seeds:
        raise MgfarmError("No seeds to run; pass --seeds or --episodes of 1 or more.")
    if replicas is not None and replicas < 1:
        raise MgfarmError(f"--replicas {replicas} is not a device count; pass 1 or more, or leave it out.")


def parse_timezones(text: str) -> list[str]:
    """Comma-separated IANA zone names; one clear sentence for a name the host does not know."""
    from zoneinfo import ZoneInfo

    zones = [z.strip() for z in text.split(",") if z.strip()]
    if not zones:
        raise MgfarmError("--timezones is empty; pass zone names such as UTC,America/Los_Angeles.")
    for zone in zones:
        try:
            ZoneInfo(zone)
        except (KeyError, ValueError) as exc:
            raise MgfarmError(f"Unknown time zone {zone!r}; use an IANA name such as Asia/Kolkata.") from exc
    return zones


def rates_table(results: list[EpisodeResult], key: str) -> Table:
    """Success / clean / progress per app or per difficulty."""
    table = Table(title=f"by {key}")
    for col in (key, "episodes", "success", "clean", "progress"):
        table.add_column(col, justify="right" if col != key else "left")
    for group, n, s, c, p in report.rates(results, key):
        table.add_row(group, str(n), f"{s:.0%}", f"{c:.0%}", f"{p:.2f}")
    return table


def episode_line(r: EpisodeResult) -> str:
    """One line per episode for run-task."""
    mark = "[green]success[/]" if r.success else "[red]fail[/]"
    extra = f" error: {escape(r.error)}" if r.error else ""
    effects = f" unexpected: {escape('; '.join(r.side_effects))}" if r.side_effects else ""
    return (
        f"{r.task_id} seed {r.seed}: {mark} progress {r.progress:.2f} clean {r.clean} "
        f"steps {r.steps} ({r.seconds:.1f} s){effects}{extra}"
    )
