"""`mgfarm bench` outputs: statistics, bench.json, the Markdown table, the README block and plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mgfarm.bench.measure import EnvSample, UpSample
from mgfarm.bench.report import README_END, README_START, markdown, table_rows, update_readme, write_all
from mgfarm.bench.run import BenchConfig, parse_replicas, summarise
from mgfarm.bench.stats import summarize
from mgfarm.errors import MgfarmError


def _result() -> dict[str, Any]:
    ups = [UpSample(1, 1.5, [1.5], 30.0), UpSample(4, 3.0, [2.0, 2.5, 2.9, 3.0], 25.0)]
    envs = [
        EnvSample(1, [40.0, 42.0], [20.0, 22.0, 24.0], [5.0, 6.0], steps=3, step_wall_s=0.1),
        EnvSample(4, [60.0] * 8, [30.0] * 12, [7.0] * 8, steps=12, step_wall_s=0.2),
    ]
    return summarise(BenchConfig.quick(replicas=[1, 4]), "settings.wifi_off", [1.4, 1.6], ups, envs)


def test_summary_has_median_and_p99() -> None:
    stats = summarize([float(v) for v in range(1, 101)])
    assert stats["n"] == 100
    assert stats["median"] == pytest.approx(50.5)
    assert stats["p99"] == pytest.approx(99.01)
    assert summarize([])["n"] == 0


def test_rows_per_replica_count_with_throughput_from_wall_time() -> None:
    result = _result()
    assert [r["replicas"] for r in result["rows"]] == [1, 4]
    assert result["rows"][1]["steps_per_s"] == pytest.approx(60.0)
    assert result["rows"][0]["reset_ms"]["median"] == pytest.approx(41.0)
    assert result["cold_start_s"]["samples"] == [1.4, 1.6]
    assert result["command"] == "mgfarm bench --backend process --replicas 1,4 --quick"
    assert table_rows(result)[1] == ["4", "3.0", "2.7/3.0", "25", "60/60", "30/30", "60.0", "7/7"]


def test_markdown_names_the_command_and_machine() -> None:
    text = markdown(_result())
    assert text.startswith("| N |")
    assert "`mgfarm bench --backend process --replicas 1,4 --quick`" in text
    assert "cores" in text
    assert text.count("\n| ") == 2  # one line per replica count after the header


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
