"""bench.json, a Markdown table and PNG plots from one run's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

COLUMNS = (
    "N",
    "all ready s",
    "replica ready s",
    "MiB each",
    "reset ms",
    "step ms",
    "steps/s",
    "judge ms",
)
LEGEND = (
    "N: replicas. Pairs are median/p99. all ready s: `up --replicas N` until every replica is ready; "
    "replica ready s: each replica's own time to ready; MiB each: memory of the farm's device "
    "processes (PSS) or containers divided by N, after the episodes; reset: snapshot load + task "
    "setup + first observation; step: action + screenshot + UI tree; steps/s: all replicas "
    "together; judge: the task's checks at episode end."
)


def _pair(stats: dict[str, Any], digits: int = 0) -> str:
    if not stats.get("n"):
        return "n/a"
    return f"{stats['median']:.{digits}f}/{stats['p99']:.{digits}f}"


def table_rows(result: dict[str, Any]) -> list[list[str]]:
    """One row of cells per replica count, in COLUMNS order."""
    return [
        [
            str(row["replicas"]),
            f"{row['up_all_ready_s']:.1f}",
            _pair(row["replica_ready_s"], 1),
            f"{row['memory_mib_per_replica']:.0f}",
            _pair(row["reset_ms"]),
            _pair(row["step_ms"]),
            f"{row['steps_per_s']:.1f}",
            _pair(row["judge_ms"]),
        ]
        for row in result["rows"]
    ]


def console_table(result: dict[str, Any]) -> Table:
    """The table for a terminal: headers on two lines, cells unwrapped, fits 80 columns."""
    table = Table(
        title=f"mgfarm bench ({result['settings']['backend']})", box=box.SIMPLE_HEAD, pad_edge=False
    )
    for column in COLUMNS:
        header = column.replace(" ", "\n", 1) if len(column) > 7 else column
        table.add_column(header, justify="right", no_wrap=True)
    for cells in table_rows(result):
        table.add_row(*cells)
    return table


def markdown(result: dict[str, Any]) -> str:
    """The table as Markdown, with the command and machine that produced it."""
    m = result["machine"]
    cold = result["cold_start_s"]
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" for _ in COLUMNS) + "|",
        *("| " + " | ".join(cells) + " |" for cells in table_rows(result)),
        "",
        LEGEND,
        "",
        f"Cold start of one replica (`up --replicas 1` to ready): median {cold['median']:.2f} s, "
        f"p99 {cold['p99']:.2f} s over {cold['n']} runs.",
        f"Backend `{result['settings']['backend']}`, task `{result['settings']['task']}`, "
        f"{result['settings']['episodes_per_env']} episodes x {result['settings']['steps_per_episode']} "
        "steps per replica.",
        f"Command: `{result['command']}` on {m['cpu']} ({m['cores']} cores, {m['memory_gib']} GiB), "
        f"{m['os']}, Python {m['python']}, mgfarm {m['mgfarm']} ({m['commit'] or 'no git'}), "
        f"{result['created_at']}, load average {m.get('load_average', ['?'])[0]} at the start "
        "(other work on the machine shows up in these numbers).",
    ]
    return "\n".join(lines) + "\n"


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
    """Steps/s, memory per replica and time to all-ready against replica count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    counts = [r["replicas"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), constrained_layout=True)
    panels = [
        ("Aggregate throughput", "steps / s", [r["steps_per_s"] for r in rows]),
        ("Memory per replica", "MiB", [r["memory_mib_per_replica"] for r in rows]),
        ("up → all replicas ready", "seconds", [r["up_all_ready_s"] for r in rows]),
    ]
    for ax, (title, unit, values) in zip(axes, panels, strict=True):
        ax.plot(counts, values, marker="o", linewidth=2)
        for x, y in zip(counts, values, strict=True):
            ax.annotate(
                f"{y:.1f}", (x, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=9
            )
        ax.set_title(title)
        ax.set_xlabel("replicas")
        ax.set_ylabel(unit)
        ax.set_xscale("log", base=2)
        ax.set_xticks(counts, [str(c) for c in counts])
        ax.set_ylim(bottom=0, top=max([*values, 1e-9]) * 1.2)
        ax.grid(True, alpha=0.3)
    fig.suptitle(
        f"mgfarm bench ({result['settings']['backend']} backend, {result['machine']['cores']} cores)"
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(result: dict[str, Any], path: Path) -> Path:
    """Distributions of reset, step and judge latency for each replica count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), constrained_layout=True)
    for ax, key, title in zip(
        axes,
        ("reset_ms", "step_ms", "judge_ms"),
        ("Reset", "Step (action + screenshot + UI)", "Judge"),
        strict=True,
    ):
        data = [r["samples"][key] or [0.0] for r in rows]
        ax.boxplot(data, whis=(1, 99), showfliers=True)
        ax.set_xticks(range(1, len(rows) + 1), [str(r["replicas"]) for r in rows])
        ax.set_title(f"{title} latency")
        ax.set_xlabel("replicas")
        ax.set_ylabel("ms (box: quartiles, whiskers: p1-p99)")
        ax.set_ylim(0, max(max(d) for d in data) * 1.15 or 1.0)  # room for the top outlier
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Latency per call, all replicas pooled")
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
