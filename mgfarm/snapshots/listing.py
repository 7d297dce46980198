"""`mgfarm snapshot list`: shipped recipes and built snapshots in one table."""

from __future__ import annotations

from rich.table import Table

from mgfarm.snapshots.manifest import Manifest, list_manifests
from mgfarm.snapshots.recipe import Recipe, list_recipes


def snapshot_rows(recipes: list[Recipe], built: list[Manifest]) -> list[dict[str, str]]:
    """One row per built snapshot, plus one per recipe not built on any backend; stale builds say so."""
    hashes = {r.name: r.content_hash() for r in recipes}
    rows = []
    for m in built:
        current = hashes.get(m.name)
        status = "ready" if current in (m.recipe_hash, None) else "stale: recipe changed, rebuild"
        rows.append(
            {
                "name": m.name,
                "backend": m.backend,
                "profile": m.profile,
                "image": m.snapshot_image or m.image,
                "screen": f"{m.screen.width}x{m.screen.height}@{m.screen.density}",
                "recipe": m.recipe_hash,
                "built": m.created_at[:16].replace("T", " "),
                "hardware": f"{m.ram_mb} MB, {m.cores} cores, {m.gpu_mode}" if m.ram_mb else "-",
                "status": status,
            }
        )
    built_names = {m.name for m in built}
    for r in recipes:
        if r.name not in built_names:
            rows.append(
                {
                    "name": r.name,
                    "backend": "-",
                    "profile": "-",
                    "image": "-",
                    "screen": "-",
                    "recipe": hashes[r.name],
                    "built": "-",
                    "hardware": "-",
                    "status": "not built",
                }
            )
    return rows


def snapshot_table() -> tuple[Table, list[dict[str, str]]]:
    rows = snapshot_rows(list_recipes(), list_manifests())
    table = Table(title="Golden snapshots", caption="build one with: mgfarm snapshot build NAME")
    shown = ("name", "backend", "profile", "image", "screen", "recipe", "status")  # `--json` has every field
    for column in shown:
        table.add_column(column, overflow="fold", no_wrap=column in ("recipe", "screen"))
    for row in rows:
        table.add_row(*(row[c] for c in shown))
    return table, rows
