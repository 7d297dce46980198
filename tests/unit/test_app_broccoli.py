"""Broccoli keeps recipes in its Room database as the real app does ('' for empty fields, the FTS index in
step) and lists, finds, stars, edits and deletes them through its screens."""

from __future__ import annotations

from pathlib import Path

from mgfarm.sim.apps.base import sql
from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find, nodes

DB = "/data/data/com.flauschcode.broccoli/databases/broccoli"
PKG = "com.flauschcode.broccoli"
ID = PKG + ":id/"
ADD = (
    "INSERT INTO recipes (title, description, servings, preparationTime, source, ingredients, directions,"
    " favorite, imageName) VALUES (?, ?, '2 servings', '10 mins', '', 'varies', ?, 0, '')"
)


def booted(tmp_path: Path) -> tuple[SimDevice, Screen, Path]:
    device = boot_device(tmp_path)
    return device, Screen(device), device.fs.host(DB, "/")


def titles(screen: Screen) -> list[str]:
    return [
        n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == ID + "card_text_view_title"
    ]


def png(device: SimDevice) -> bytes:
    data: bytes = device.services.window.screencap_png()
    assert data.startswith(b"\x89PNG")
    return data


def test_the_app_starts_empty_and_says_so(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    assert sql(db, "SELECT count(*) FROM recipes") == [(0,)]
    screen.am.launch(PKG)
    assert screen.has(text="Start adding your first recipe!")
    png(device)


def test_new_recipe_stores_empty_fields_as_empty_text_and_is_indexed(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="Add recipe")
    screen.type_into("Pesto Pasta", rid=ID + "new_title")
    screen.wm.key(4)  # BACK hides the keyboard, which covers the lower fields
    screen.type_into("Cook pasta, stir in pesto.", rid=ID + "new_directions")
    png(device)
    screen.tap(desc="Save")
    assert sql(
        db, "SELECT title, description, servings, source, directions, favorite, imageName FROM recipes"
    ) == [("Pesto Pasta", "", "", "", "Cook pasta, stir in pesto.", 0, "")]
    assert sql(db, "SELECT title FROM recipes_fts WHERE recipes_fts MATCH 'pesto'") == [("Pesto Pasta",)]
    assert titles(screen) == ["Pesto Pasta"]


def test_list_is_alphabetical_and_search_reads_the_directions(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    sql(db, ADD, ("Tacos", "Crunchy", "Fill shells with beef."))
    sql(db, ADD, ("beef stew", "Slow", "Simmer for hours."))
    sql(db, ADD, ("Avocado toast", "Quick", "Toast bread, add avocado."))
    screen.am.launch(PKG)
    assert titles(screen) == ["Avocado toast", "beef stew", "Tacos"]
    screen.tap(desc="Search")
    screen.wm.text("BEEF")
    assert titles(screen) == ["beef stew", "Tacos"]
    png(device)


def test_favorite_edit_and_delete_from_the_details_screen(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    sql(db, ADD, ("Tacos", "Crunchy", "Fill shells with beef."))
    sql(db, ADD, ("Soup", "Warm", "Boil."))
    screen.am.launch(PKG)
    screen.tap(text="Tacos")
    screen.tap(desc="Add to favorites")
    assert sql(db, "SELECT favorite FROM recipes WHERE title = 'Tacos'") == [(1,)]
    screen.tap(text="Directions")
    assert find(screen.xml(), rid=ID + "details_directions").attrs["text"] == "Fill shells with beef."
    screen.tap(desc="Edit")
    screen.type_into(" al pastor", rid=ID + "new_title")
    screen.tap(desc="Save")
    assert screen.has(text="Tacos al pastor")
    screen.tap(desc="More options")
    png(device)
    screen.tap(text="Delete")
    screen.tap(text="Delete", rid="android:id/button1")
    assert sql(db, "SELECT title FROM recipes") == [("Soup",)]
    assert sql(db, "SELECT count(*) FROM recipes_fts WHERE recipes_fts MATCH 'tacos'") == [(0,)]
    screen.tap(desc="Open navigation drawer")
    png(device)
    screen.tap(text="Favorites")
    assert titles(screen) == []
    assert screen.has(text="Favorites")
