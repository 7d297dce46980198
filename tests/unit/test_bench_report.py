"""`mgfarm bench` outputs: statistics, bench.json, the Markdown table, the README block and plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mgfarm.bench.measure import EnvSample, FarmRun, UpSample, WindowSample
from mgfarm.bench.report import (
    README_END,
    README_START,
    console_table,
    markdown,
    table_rows,
    update_readme,
    workload_rows,
    write_all,
)
from mgfarm.bench.run import BenchConfig, parse_replicas, summarise
from mgfarm.bench.stats import summarize
from mgfarm.errors import MgfarmError


def _window(workload: str, size: int, step_ms: float, steps: int, wall_s: float, cpu: float) -> WindowSample:
    return WindowSample(
        workload,
        size,
        [step_ms] * steps,
        steps=steps,
        wall_s=wall_s,
        cpu_s={"sim": cpu / 2, "adb": cpu / 4, "client": cpu / 4},
    )


def _result() -> dict[str, Any]:
    ups = [
        UpSample(1, 1.5, [1.5], 30.0, working_mib_per_replica=45.0),
        UpSample(
            4, 3.0, [2.0, 2.5, 2.9, 3.0], 25.0, working_mib_per_replica=28.25, paced_mib_per_replica=9.5
        ),
    ]
    runs = [
        FarmRun(
            EnvSample(1, [40.0, 42.0], [], [5.0, 6.0]),
            {
                "mixed": _window("mixed", 1, 8.0, 30, 0.3, 0.15),
                "new-frame": _window("new-frame", 1, 40.0, 30, 1.5, 1.2),
            },
            apps_opened=14,
        ),
        FarmRun(
            EnvSample(4, [60.0] * 8, [], [7.0] * 8),
            {
                "mixed": _window("mixed", 4, 30.0, 120, 2.0, 0.6),
                "new-frame": _window("new-frame", 4, 120.0, 120, 4.0, 4.8),
            },
            apps_opened=14,
            paced=_window("paced", 4, 20.0, 24, 6.0, 0.36),
        ),
    ]
    config = BenchConfig.quick(replicas=[1, 4])
    return summarise(config, "settings.wifi_off", [1.4, 1.6], ups, runs, [2.5, 1.0, 0.5])


def test_summary_has_median_and_p99() -> None:
    stats = summarize([float(v) for v in range(1, 101)])
    assert stats["n"] == 100
    assert stats["median"] == pytest.approx(50.5)
    assert stats["p99"] == pytest.approx(99.01)
    assert summarize([])["n"] == 0


def test_rows_per_replica_count_with_throughput_from_wall_time() -> None:
    result = _result()
    assert [r["replicas"] for r in result["rows"]] == [1, 4]
    four = result["rows"][1]
    assert four["workloads"]["mixed"]["steps_per_s"] == pytest.approx(60.0)
    assert four["workloads"]["new-frame"]["steps_per_s"] == pytest.approx(30.0)
    assert four["workloads"]["new-frame"]["cpu_ms_per_step"] == pytest.approx(40.0)
    assert four["workloads"]["new-frame"]["cpu_ms_per_step_by_group"] == {
        "adb": 10.0,
        "client": 10.0,
        "sim": 20.0,
    }
    assert result["rows"][0]["reset_ms"]["median"] == pytest.approx(41.0)
    assert result["cold_start_s"]["samples"] == [1.4, 1.6]
    assert result["command"] == "mgfarm bench --backend process --replicas 1,4 --quick"
    assert result["machine"]["load_average"] == [2.5, 1.0, 0.5]  # the start's, not the end's
    assert table_rows(result)[0] == ["1", "1.5", "1.5/1.5", "30.0", "45.0", "n/a", "41/42", "6/6"]
    assert table_rows(result)[1] == ["4", "3.0", "2.7/3.0", "25.0", "28.2", "9.5", "60/60", "7/7"]
    assert four["workloads"]["paced"]["steps_per_s"] == pytest.approx(4.0)  # the agent's pace
    assert four["workloads"]["paced"]["cpu_ms_per_step"] == pytest.approx(15.0)


def test_workload_rows_group_by_workload_then_replicas() -> None:
    assert workload_rows(_result()) == [
        ["mixed", "1", "8/8", "100.0", "5.0"],
        ["mixed", "4", "30/30", "60.0", "5.0"],
        ["new-frame", "1", "40/40", "20.0", "40.0"],
        ["new-frame", "4", "120/120", "30.0", "40.0"],
        ["paced", "4", "20/20", "4.0", "15.0"],
    ]


def test_markdown_names_the_command_machine_and_load() -> None:
    text = markdown(_result())
    assert text.startswith("| N |")
    assert "`mgfarm bench --backend process --replicas 1,4 --quick`" in text
    assert "cores" in text
    assert "load average 2.5 at the start" in text
    assert "10 warm-up steps per replica, then at least 50 counted" in text
    tables = [block for block in text.split("\n\n") if block.startswith("|")]
    assert len(tables) == 2
    assert tables[0].count("\n| ") == 2  # farm table: one line per replica count after the header
    assert tables[1].count("\n| ") == 5  # workload table: one line per workload and replica count
    assert tables[1].startswith("| workload | N | step ms | steps/s | CPU ms/step |")


def test_console_tables_fit_80_columns() -> None:
    from rich.console import Console

    console = Console(width=80, record=True)
    console.print(console_table(_result()))
    text = console.export_text()
    assert "new-frame" in text and "load average at the start: 2.5" in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80


def test_write_all_makes_json_table_and_readable_plots(tmp_path: Path) -> None:
    paths = write_all(_result(), tmp_path / "out")
    assert [p.name for p in paths] == ["bench.json", "bench.md", "scaling.png", "latency.png"]
    assert json.loads(paths[0].read_text())["rows"][0]["replicas"] == 1
    for png in paths[2:]:
        with Image.open(png) as image:
            assert image.format == "PNG"
            assert image.width >= 1000 and image.height >= 300


def test_update_readme_replaces_only_the_marked_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{README_START}\nold table\n{README_END}\n\nafter\n")
    update_readme(readme, _result())
    text = readme.read_text()
    assert "old table" not in text
    assert text.startswith("# x\n\n") and text.endswith("\n\nafter\n")
    assert markdown(_result()).splitlines()[0] in text
    readme.write_text("no markers")
    with pytest.raises(MgfarmError, match="markers"):
        update_readme(readme, _result())


@pytest.mark.parametrize("text", ["", "a,b", "0,4", "-1"])
def test_bad_replica_lists_are_refused(text: str) -> None:
    with pytest.raises(MgfarmError, match="--replicas"):
        parse_replicas(text)


def test_replica_list_is_sorted_and_deduplicated() -> None:
    assert parse_replicas("8, 1,8,64") == [1, 8, 64]


def test_a_half_size_run_says_so_in_its_command_and_table() -> None:
    result = _result()
    config = BenchConfig.quick(replicas=[1, 4])
    config.screen_scale = 2
    half = summarise(config, "settings.wifi_off", [1.4], [], [], [0.5])
    assert half["settings"]["screen_scale"] == 2
    assert half["command"].endswith("--screen-scale 2 --quick")
    assert "observations 1/2 of the screen a side" in markdown({**result, **half, "rows": result["rows"]})
    assert "--screen-scale" not in result["command"] and "1/2 of the screen" not in markdown(result)


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--screen-scale", "3"], "--screen-scale 3 is unsupported; use 1 (full size), 2 or 4."),
        (["--screen-scale", "2", "--androidworld"], "not --androidworld; drop one of them."),
    ],
)
def test_a_screen_scale_the_bench_cannot_use_is_refused_before_any_farm_starts(
    args: list[str], sentence: str
) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", "from mgfarm.cli import main; main()", "bench", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert sentence in " ".join(run.stderr.split())  # rich wraps the line at the terminal width
