"""bench.json, a Markdown table and PNG plots from one run's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mgfarm.bench.workloads import WORKLOADS

COLUMNS = (
    "N",
    "all ready s",
    "replica ready s",
    "MiB each boot",
    "MiB each working",
    "MiB each paced",
    "reset ms",
    "judge ms",
)
WORKLOAD_COLUMNS = ("workload", "N", "step ms", "steps/s", "CPU ms/step")
LEGEND = (
    "N: replicas. Pairs are median/p99. all ready s: `up --replicas N` until every replica is ready; "
    "replica ready s: each replica's own time to ready; MiB each: PSS of every process of the farm "
    "(device workers or containers, watchdog, adb server) divided by N, at boot, working (after "
    "every app was opened on every replica and both workloads ran) and paced (while each env steps "
    "once every 2 s, as an agent that calls a model between steps); reset: snapshot load + task "
    "setup + first observation; judge: the task's checks at episode end. Workloads: mixed is "
    "clicks, scrolls and back through screens seen before; new-frame is dial-pad taps typing a "
    "number, each showing a screen never drawn before; paced is mixed at that agent's pace (its "
    "CPU ms/step includes the waits). step: action + screenshot + UI tree; "
    "steps/s: all replicas together, over each env's steps after its warm-up; CPU ms/step: sim, "
    "adb server, watchdog and client processes together over those steps."
)


def _pair(stats: dict[str, Any], digits: int = 0) -> str:
    if not stats.get("n"):
        return "n/a"
    return f"{stats['median']:.{digits}f}/{stats['p99']:.{digits}f}"


def table_rows(result: dict[str, Any]) -> list[list[str]]:
    """The farm table: one row of cells per replica count, in COLUMNS order."""
    return [
        [
            str(row["replicas"]),
            f"{row['up_all_ready_s']:.1f}",
            _pair(row["replica_ready_s"], 1),
            f"{row['memory_mib_per_replica_at_boot']:.1f}",
            f"{row['memory_mib_per_replica']:.1f}",
            f"{row['memory_mib_per_replica_paced']:.1f}" if "memory_mib_per_replica_paced" in row else "n/a",
            _pair(row["reset_ms"]),
            _pair(row["judge_ms"]),
        ]
        for row in result["rows"]
    ]


def workload_rows(result: dict[str, Any]) -> list[list[str]]:
    """The workload table: a row per workload and replica count, in WORKLOAD_COLUMNS order."""
    names = sorted(
        {w for row in result["rows"] for w in row.get("workloads", {})},
        key=lambda w: (WORKLOADS.index(w) if w in WORKLOADS else len(WORKLOADS), w),
    )
    cells = []
    for name in names:
        for row in result["rows"]:
            window = row.get("workloads", {}).get(name)
            if window is None:
                continue
            cells.append(
                [
                    name,
                    str(row["replicas"]),
                    _pair(window["step_ms"]),
                    f"{window['steps_per_s']:.1f}",
                    f"{window['cpu_ms_per_step']:.1f}",
                ]
            )
    return cells


def _rich_table(title: str, columns: tuple[str, ...], rows: list[list[str]]) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for column in columns:
        header = column.replace(" ", "\n", 1) if len(column) > 7 else column
        table.add_column(header, justify="left" if column == "workload" else "right", no_wrap=True)
    for cells in rows:
        table.add_row(*cells)
    return table


def console_table(result: dict[str, Any]) -> RenderableType:
    """The farm and workload tables for a terminal: headers on two lines, cells unwrapped, 80 columns."""
    return Group(
        _rich_table(f"mgfarm bench ({result['settings']['backend']})", COLUMNS, table_rows(result)),
        _rich_table("steps, after warm-up", WORKLOAD_COLUMNS, workload_rows(result)),
        Text(f"load average at the start: {_load(result)}"),
    )


def _load(result: dict[str, Any]) -> str:
    return str(result["machine"].get("load_average", ["?"])[0])


def _markdown_table(columns: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join(":---" if c == "workload" else "---:" for c in columns) + "|",
        *("| " + " | ".join(cells) + " |" for cells in rows),
    ]


def markdown(result: dict[str, Any]) -> str:
    """The farm and workload tables as Markdown, with the command, machine and load that produced them."""
    m = result["machine"]
    cold = result["cold_start_s"]
    settings = result["settings"]
    lines = [
        *_markdown_table(COLUMNS, table_rows(result)),
        "",
        *_markdown_table(WORKLOAD_COLUMNS, workload_rows(result)),
        "",
        LEGEND,
        "",
        f"Cold start of one replica (`up --replicas 1` to ready): median {cold['median']:.2f} s, "
        f"p99 {cold['p99']:.2f} s over {cold['n']} runs.",
        f"Backend `{settings['backend']}`, task `{settings['task']}`, "
        f"{settings['episodes_per_env']} episodes x {settings['steps_per_episode']} "
        "steps per replica for reset and judge; each workload on a fresh episode: "
        f"{settings.get('warmup_steps', 0)} warm-up steps per replica, then at least "
        f"{settings.get('window_steps', 0)} counted"
        + _observation_size(settings.get("screen_scale", 1))
        + ".",
        f"Command: `{result['command']}` on {m['cpu']} ({m['cores']} cores, {m['memory_gib']} GiB), "
        f"{m['os']}, Python {m['python']}, mgfarm {m['mgfarm']} ({m['commit'] or 'no git'}), "
        f"{result['created_at']}, load average {_load(result)} at the start "
        "(other work on the machine shows up in these numbers).",
    ]
    return "\n".join(lines) + "\n"


def _observation_size(scale: int) -> str:
    """How large the envs' observations were, when not the whole screen."""
    return "" if scale == 1 else f"; observations 1/{scale} of the screen a side, resized in the device"


def write_all(result: dict[str, Any], out_dir: Path) -> list[Path]:
    """bench.json, bench.md, scaling.png and latency.png under out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "bench.json"
    json_path.write_text(json.dumps(result, indent=1) + "\n")
    md_path = out_dir / "bench.md"
    md_path.write_text(markdown(result))
    return [
        json_path,
        md_path,
        plot_scaling(result, out_dir / "scaling.png"),
        plot_latency(result, out_dir / "latency.png"),
    ]


def plot_scaling(result: dict[str, Any], path: Path) -> Path:
    """Steps/s of each workload, memory per replica (boot, working) and time to all-ready against N."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    counts = [r["replicas"] for r in rows]

    def workload(name: str, key: str) -> list[float]:
        return [r.get("workloads", {}).get(name, {}).get(key, 0.0) for r in rows]

    fig, axes = plt.subplots(1, 3, figsize=(13, 4), constrained_layout=True)
    panels = [
        ("Aggregate throughput", "steps / s", {w: workload(w, "steps_per_s") for w in WORKLOADS}),
        (
            "Memory per replica",
            "MiB",
            {
                "boot": [r["memory_mib_per_replica_at_boot"] for r in rows],
                "working": [r["memory_mib_per_replica"] for r in rows],
            },
        ),
        ("up → all replicas ready", "seconds", {"": [r["up_all_ready_s"] for r in rows]}),
    ]
    for ax, (title, unit, lines) in zip(axes, panels, strict=True):
        for label, values in lines.items():
            ax.plot(counts, values, marker="o", linewidth=2, label=label or None)
            for x, y in zip(counts, values, strict=True):
                ax.annotate(
                    f"{y:.1f}", (x, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=9
                )
        if len(lines) > 1:
            ax.legend()
        ax.set_title(title)
        ax.set_xlabel("replicas")
        ax.set_ylabel(unit)
        ax.set_xscale("log", base=2)
        ax.set_xticks(counts, [str(c) for c in counts])
        top = max([v for values in lines.values() for v in values] + [1e-9])
        ax.set_ylim(bottom=0, top=top * 1.2)
        ax.grid(True, alpha=0.3)
    fig.suptitle(
        f"mgfarm bench ({result['settings']['backend']} backend, {result['machine']['cores']} cores)"
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(result: dict[str, Any], path: Path) -> Path:
    """Distributions of reset, each workload's step and judge latency for each replica count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    panels = [
        ("reset_ms", "Reset"),
        *((f"{w}_step_ms", f"Step, {w}") for w in WORKLOADS),
        ("judge_ms", "Judge"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4), constrained_layout=True)
    for ax, (key, title) in zip(axes, panels, strict=True):
        data = [r["samples"].get(key) or [0.0] for r in rows]
        ax.boxplot(data, whis=(1, 99), showfliers=True)
        ax.set_xticks(range(1, len(rows) + 1), [str(r["replicas"]) for r in rows])
        ax.set_title(f"{title} latency")
        ax.set_xlabel("replicas")
        ax.set_ylabel("ms (box: quartiles, whiskers: p1-p99)")
        ax.set_ylim(0, max(max(d) for d in data) * 1.15 or 1.0)  # room for the top outlier
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Latency per call, all replicas pooled (steps: counted window only)")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


README_START = "<!-- bench:start -->"
README_END = "<!-- bench:end -->"


def update_readme(readme: Path, result: dict[str, Any]) -> None:
    """Replace the table between the bench markers in the README with this run's table."""
    from mgfarm.errors import MgfarmError

    text = readme.read_text()
    if README_START not in text or README_END not in text:
        raise MgfarmError(
            f"{readme} has no {README_START} ... {README_END} markers; add them where the table goes."
        )
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(f"{head}{README_START}\n{markdown(result)}{README_END}{tail}")
