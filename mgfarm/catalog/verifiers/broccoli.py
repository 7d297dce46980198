"""Broccoli (com.flauschcode.broccoli): recipes in its Room database `broccoli`, table `recipes` (text
fields, '' when empty; `favorite` 0/1). `recipes_fts` is the full-text index Room's triggers keep in step."""

from __future__ import annotations

from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "broccoli",
        "/data/data/com.flauschcode.broccoli/databases/broccoli",
        app="broccoli",
        main="recipes",
        key="recipeId",
        edit="servings = servings || '0'",
        extra="INSERT INTO recipes (title, imageName, description, servings, preparationTime, source,"
        " ingredients, directions, favorite)"
        " VALUES ('Ghost soup', '', '', '2', '10 min', '', 'water', 'boil', 0)",
    ),
)
# The search index follows every recipe change (Room triggers write it and its shadow tables).
INCIDENTAL = ("broccoli.recipes_fts*",)
