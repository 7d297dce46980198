"""docs/compat.md's task table: a task passes only when set up, 0.0 untouched and 1.0 solved; every
other row says why; and `mgfarm bench --androidworld` says what it measured."""

from __future__ import annotations

from pathlib import Path

from mgfarm.bench.androidworld import MEASURED, SuiteTiming, lines, write
from mgfarm.suites.aw_eval import Row, SuiteRun
from mgfarm.tasks.jobs import EpisodeResult
from tests.compat.androidworld import TaskRow, table, task_rows


def episode(task: str, success: bool = False, steps: int = 1, error: str = "") -> EpisodeResult:
    result = EpisodeResult(task, "app", "complexity 1", 30, "agent", task, "goal")
    result.success, result.progress, result.steps, result.error = success, float(success), steps, error
    return result


def suite(results: list[EpisodeResult], skipped: dict[str, str] | None = None) -> SuiteRun:
    rows = [Row(r.task_id, 30, "yes" if r.success else "no", r.steps, 1.0, r.error) for r in results]
    rows += [Row(name, 30, "skipped", 0, 0.0, why) for name, why in (skipped or {}).items()]
    return SuiteRun(results, rows, None, None, 12.0, 3)


def test_each_row_passes_or_says_why() -> None:
    names = ["Broken", "Chrome", "Done", "Solved", "SystemWifiVerify", "Unsolved", "Wrong"]
    nothing = suite(
        [
            episode("Broken", steps=0, error="AdbError: no such file"),
            episode("Done", success=True),
            episode("Solved"),
            episode("Unsolved"),
            episode("SystemWifiVerify", success=True),
            episode("Wrong"),
        ],
        {"Chrome": "skipped: app not on the device: chrome"},
    )
    scripted = suite(
        [
            episode("Broken", steps=0, error="AdbError: no such file"),
            episode("Done", success=True),
            episode("Solved", success=True),
            episode("SystemWifiVerify", success=True),
            episode("Wrong", error="LookupError: no row"),
        ]
    )
    rows = task_rows(names, nothing, scripted, {"Broken", "Done", "Solved", "SystemWifiVerify", "Wrong"})
    assert rows == [
        TaskRow("Broken", "fails", "-", "-", "initialize_task fails: AdbError: no such file"),
        TaskRow("Chrome", "-", "-", "-", "app not on the device: chrome"),
        TaskRow("Done", "ok", "1.0", "1.0", "the untouched device scores 1.0"),
        TaskRow("Solved", "ok", "0.0", "1.0", ""),
        TaskRow("SystemWifiVerify", "ok", "1.0", "1.0", ""),  # a Verify task's goal is its precondition
        TaskRow("Unsolved", "ok", "0.0", "no solution", "no scripted UI solution written yet"),
        TaskRow("Wrong", "ok", "0.0", "0.0", "LookupError: no row"),
    ]
    assert [r.name for r in rows if r.passes] == ["Solved", "SystemWifiVerify"]
    timings = [SuiteTiming("nothing", 3, 5.0, nothing), SuiteTiming("scripted", 3, 5.0, scripted)]
    page = table([], rows, timings)
    assert "python -m tests.compat.androidworld --write docs/compat.md" in page
    assert "**2 of 7 tasks pass.**" in page and "mgfarm eval --suite androidworld" in page
    assert "| Solved | passes | ok | 0.0 | 1.0 |  |" in page
    assert "nothing on 6 tasks, 2 scored 1.0, 12 s; scripted on 5 tasks, 3 scored 1.0, 12 s" in page


def test_bench_says_what_it_measured(tmp_path: Path) -> None:
    timing = SuiteTiming("nothing", 16, 20.0, suite([episode("A"), episode("B")], {"C": "skipped: chrome"}))
    text = "\n".join(lines([timing]))
    assert MEASURED in text and "16 replicas: 2 tasks (1 skipped" in text and "6.00 s per task" in text
    assert "python -m tests.compat.androidworld --replicas N" in text
    doc = write([timing], tmp_path, {"cores": 2}).read_text()
    assert '"wall_s": 12.0' in doc and '"replicas": 16' in doc
