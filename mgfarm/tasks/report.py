"""Eval output: results.json, a self-contained HTML report, and success rates per app and difficulty.

The screenshots are the trajectory recorder's (`mgfarm.env.recorder`: full-size PNGs, one per
observation); each episode's `trajectory` names the one every action was chosen on.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from PIL import Image

from mgfarm.tasks.jobs import EpisodeResult

MAX_THUMBS = 12
THUMB_WIDTH = 216  # twice the shown width, for high-density screens


def rates(results: list[EpisodeResult], key: str) -> list[tuple[str, int, float, float, float]]:
    """(group, episodes, success rate, clean rate, mean progress) per value of `app` or `difficulty`."""
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for r in results:
        groups[str(getattr(r, key))].append(r)
    rows = []
    for name in sorted(groups):
        rs = groups[name]
        n = len(rs)
        rows.append(
            (
                name,
                n,
                sum(r.success for r in rs) / n,
                sum(r.clean for r in rs) / n,
                sum(r.progress for r in rs) / n,
            )
        )
    return rows


def summary(results: list[EpisodeResult]) -> dict[str, Any]:
    """Totals and per-group rates, as stored in results.json."""
    n = len(results) or 1
    return {
        "episodes": len(results),
        "success_rate": sum(r.success for r in results) / n,
        "clean_rate": sum(r.clean for r in results) / n,
        "mean_progress": sum(r.progress for r in results) / n,
        "errors": sum(bool(r.error) for r in results),
        "by_app": {
            g: {"n": k, "success": s, "clean": c, "progress": p} for g, k, s, c, p in rates(results, "app")
        },
        "by_difficulty": {
            g: {"n": k, "success": s, "clean": c, "progress": p}
            for g, k, s, c, p in rates(results, "difficulty")
        },
    }


def write_results(results: list[EpisodeResult], folder: Path, meta: dict[str, Any]) -> Path:
    """results.json: run metadata, summary and every episode."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    data = {"meta": meta, "summary": summary(results), "episodes": [r.as_dict() for r in results]}
    path.write_text(json.dumps(data, indent=2, default=str))
    return path


def _img(folder: Path, relative: str) -> str:
    """An inline <img> (data URI) so the report is one self-contained file.

    The thumbnail is made here, from the recorded PNG: the run keeps one copy of each screen (the
    training-size one), and the report stays small (a JPEG of a few KB instead of the PNG).
    """
    path = folder / relative
    if not path.is_file():
        return ""
    with Image.open(path) as image:
        height = round(image.height * THUMB_WIDTH / image.width)
        small = image.convert("RGB").resize((THUMB_WIDTH, height))
    buffer = io.BytesIO()
    small.save(buffer, "JPEG", quality=70)
    data = base64.b64encode(buffer.getvalue()).decode()
    return f'<img src="data:image/jpeg;base64,{data}" alt="{html.escape(relative)}">'


def _action_text(action: Any) -> str:
    if not isinstance(action, dict):
        return html.escape(str(action))
    rest = {k: v for k, v in action.items() if k != "action_type"}
    return html.escape(f"{action.get('action_type')} {json.dumps(rest) if rest else ''}".strip())


def _episode_html(r: EpisodeResult, folder: Path) -> str:
    badge = "ok" if r.success else "fail"
    checks = "".join(
        f"<li class={'ok' if c['ok'] else 'fail'}>{html.escape(c['name'])}: {html.escape(str(c['detail']))}"
        for c in r.checks
    )
    effects = "".join(f"<li>{html.escape(e)}</li>" for e in r.side_effects) or "<li>none</li>"
    frames = []
    for entry in r.trajectory[:MAX_THUMBS]:
        image = _img(folder, entry["screen"]) if "screen" in entry else ""
        frames.append(
            f"<figure>{image}<figcaption>{entry['step']}: {_action_text(entry.get('action'))}</figcaption>"
            "</figure>"
        )
    error = f"<p class=fail>error: {html.escape(r.error)}</p>" if r.error else ""
    answer = html.escape(str(r.answer) if r.answer is not None else "-")
    return f"""
<section class="episode {badge}">
  <h2><span class="badge {badge}">{"SUCCESS" if r.success else "FAIL"}</span> {html.escape(r.task_id)}
      <small>seed {r.seed} · {r.difficulty} · agent {html.escape(r.agent)} · {r.serial}</small></h2>
  <p class="goal">{html.escape(r.goal)}</p>
  <p>progress {r.progress:.2f} · clean {"yes" if r.clean else "no"} · steps {r.steps} ·
     status {html.escape(r.status or "-")} · answer {answer} ·
     {r.seconds:.1f} s (judge {r.judge_seconds * 1000:.0f} ms)</p>{error}
  <div class="cols"><div><h3>Checks</h3><ul>{checks}</ul></div>
  <div><h3>Side effects</h3><ul>{effects}</ul></div></div>
  <div class="strip">{"".join(frames)}</div>
</section>"""


def _rates_table(title: str, rows: list[tuple[str, int, float, float, float]]) -> str:
    body = "".join(
        f"<tr><td>{html.escape(g)}</td><td>{n}</td><td>{s:.0%}</td><td>{c:.0%}</td><td>{p:.2f}</td></tr>"
        for g, n, s, c, p in rows
    )
    return (
        f"<table><caption>{title}</caption><tr><th></th><th>episodes</th><th>success</th>"
        f"<th>clean</th><th>progress</th></tr>{body}</table>"
    )


def _rows_table(title: str, rows: list[dict[str, Any]]) -> str:
    """A table of dicts with the same keys (a suite's per-task table, `meta["table"]`)."""
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row.values()) + "</tr>" for row in rows
    )
    return f"<table><caption>{html.escape(title)}</caption><tr>{head}</tr>{body}</table>"


STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;background:#fafafa;color:#222}
h1{margin:0 0 4px}
.meta{color:#666}
table{border-collapse:collapse;margin:12px 24px 12px 0;display:inline-table}
td,th{border:1px solid #ddd;padding:4px 10px;text-align:right}
td:first-child{text-align:left}
caption{font-weight:bold;text-align:left;padding:4px 0}
.episode{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 16px;margin:14px 0}
.episode{border-left:6px solid #c62828}
.episode.ok{border-left-color:#2e7d32}
.badge{color:#fff;border-radius:4px;padding:2px 8px;font-size:.8em}
.badge.ok{background:#2e7d32}
.badge.fail{background:#c62828}
h2 small{color:#777;font-weight:normal;font-size:.6em}
.goal{font-size:1.1em;font-style:italic}
li.ok{color:#2e7d32}
li.fail{color:#c62828}
p.fail{color:#c62828}
.cols{display:flex;gap:40px}
.strip{display:flex;gap:8px;overflow-x:auto}
figure{margin:0;width:120px;font-size:.7em;color:#555}
figure img{width:120px;border:1px solid #ccc;border-radius:4px}
"""


def write_html(results: list[EpisodeResult], folder: Path, meta: dict[str, Any]) -> Path:
    """report.html: summary tables, then one card per episode with checks, side effects and thumbnails."""
    s = summary(results)
    what = meta.get("suite") or ", ".join(meta.get("tasks") or [])
    suite, agent = html.escape(str(what)), html.escape(str(meta.get("agent", "")))
    head = (
        f"<h1>mgfarm eval: {suite} with {agent}</h1>"
        f"<p class=meta>{s['episodes']} episodes · success {s['success_rate']:.0%}"
        f" · clean {s['clean_rate']:.0%} · mean progress {s['mean_progress']:.2f} · errors {s['errors']}"
        f" · {html.escape(str(meta.get('started', '')))}</p>"
    )
    tables = _rates_table("By app", rates(results, "app")) + _rates_table(
        "By difficulty", rates(results, "difficulty")
    )
    tables += _rows_table("By task", list(meta.get("table") or []))
    episodes = "".join(_episode_html(r, folder) for r in results)
    page = (
        "<!doctype html><html><head><meta charset=utf-8><title>mgfarm eval report</title>"
        f"<style>{STYLE}</style></head><body>{head}{tables}{episodes}</body></html>"
    )
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
