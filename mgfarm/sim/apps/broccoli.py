"""Broccoli (com.flauschcode.broccoli): a recipe app on its Room database `databases/broccoli`.

Recipes are listed by title (A to Z, then by age); search matches title, description, ingredients and
directions. Empty fields are stored as '' (the app's editor saves what its text fields hold).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, sql, sql_insert, sql_script
from mgfarm.sim.ui.views import Column, EditText, IconButton, Row, Rows, Scrim, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, app_bar, dialog, empty_state, fab, header, list_item, page, tabs

PKG = "com.flauschcode.broccoli"
MAIN = f"{PKG}.MainActivity"
DETAILS = f"{PKG}.recipe.details.RecipeDetailsActivity"
EDIT = f"{PKG}.recipe.crud.CreateAndEditRecipeActivity"
DB = "broccoli"
FIELDS = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions")
LABELS = {
    "title": "Title",
    "description": "Description",
    "servings": "Servings",
    "preparationTime": "Preparation time",
    "source": "Source",
    "ingredients": "Ingredients",
    "directions": "Directions",
}
# Room schema of Broccoli's database (version 4): recipes, categories, their join table and the FTS4
# index Room keeps in step with `recipes` through triggers.
SCHEMA = """
CREATE TABLE IF NOT EXISTS `recipes` (`recipeId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT,
  `imageName` TEXT, `description` TEXT, `servings` TEXT, `preparationTime` TEXT, `source` TEXT,
  `ingredients` TEXT, `directions` TEXT, `favorite` INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS `categories` (`categoryId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  `name` TEXT);
CREATE TABLE IF NOT EXISTS `recipes_with_categories` (`recipeId` INTEGER NOT NULL,
  `categoryId` INTEGER NOT NULL, PRIMARY KEY(`recipeId`, `categoryId`),
  FOREIGN KEY(`recipeId`) REFERENCES `recipes`(`recipeId`) ON UPDATE NO ACTION ON DELETE CASCADE,
  FOREIGN KEY(`categoryId`) REFERENCES `categories`(`categoryId`) ON UPDATE NO ACTION ON DELETE CASCADE);
CREATE INDEX IF NOT EXISTS `index_recipes_with_categories_categoryId` ON `recipes_with_categories`
  (`categoryId`);
CREATE VIRTUAL TABLE IF NOT EXISTS `recipes_fts` USING FTS4(`title` TEXT, `description` TEXT,
  `ingredients` TEXT, `directions` TEXT, content=`recipes`);
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_UPDATE BEFORE UPDATE ON `recipes`
  BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_DELETE BEFORE DELETE ON `recipes`
  BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_UPDATE AFTER UPDATE ON `recipes`
  BEGIN INSERT INTO `recipes_fts`(`docid`, `title`, `description`, `ingredients`, `directions`)
  VALUES (NEW.`rowid`, NEW.`title`, NEW.`description`, NEW.`ingredients`, NEW.`directions`); END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_INSERT AFTER INSERT ON `recipes`
  BEGIN INSERT INTO `recipes_fts`(`docid`, `title`, `description`, `ingredients`, `directions`)
  VALUES (NEW.`rowid`, NEW.`title`, NEW.`description`, NEW.`ingredients`, NEW.`directions`); END;
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY, identity_hash TEXT);
"""
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
COLUMNS = "recipeId, " + ", ".join(FIELDS) + ", favorite"


class Broccoli(App):
    package = PKG
    label = "Broccoli"
    main_activity = MAIN
    icon = "note"
    icon_color = "#43A047"
    version_name = "1.4.2"

    def create_data(self) -> None:
        sql_script(self.db_file(DB), SCHEMA, SEED)  # the app starts with no recipes

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, DETAILS: self.details, EDIT: self.edit}

    # ---- data
    def recipes(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        rows = sql(
            self.db_file(DB),
            f"SELECT {COLUMNS} FROM recipes WHERE {where} ORDER BY title COLLATE NOCASE, recipeId",
            args,
        )
        keys = ("recipeId", *FIELDS, "favorite")
        return [{k: ("" if v is None else v) for k, v in zip(keys, r, strict=True)} for r in rows]

    def recipe(self, rid: int) -> dict[str, Any] | None:
        found = self.recipes("recipeId = ?", (rid,))
        return found[0] if found else None

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        st = ctx.state
        section = str(st.get("section", "recipes"))
        query = ctx.field("query").strip()

        def open_recipe(rid: int) -> Callable[[], None]:
            return lambda: ctx.start(DETAILS, {"recipe_id": rid})

        if st.get("searching") and query:
            like = f"%{query}%"
            found = self.recipes(
                "title LIKE ? OR description LIKE ? OR ingredients LIKE ? OR directions LIKE ?",
                (like, like, like, like),
            )
        elif section == "favorites":
            found = self.recipes("favorite = 1")
        else:
            found = self.recipes()
        cards = [partial(self.card, r, open_recipe(int(r["recipeId"]))) for r in found]  # made as shown
        empty = "No recipes found" if st.get("searching") else "Start adding your first recipe!"

        def stop_search() -> None:
            st.pop("searching", None)
            ctx.set_fields({})

        def start_search() -> None:
            st["searching"] = True
            ctx.set_fields({})
            ctx.focus("query")

        if st.get("searching"):
            ctx.on_back(stop_search)
            bar: View = Row(
                id="toolbar",
                height=64,
                pad=(4, 0, 8, 0),
                children=[
                    IconButton(name="arrow_back", desc="Collapse", tint="on_surface", on_click=stop_search),
                    EditText(
                        id="search_src_text", key="query", hint="Search", style="search", text=query, weight=1
                    ),
                ],
            )
        else:
            title = "Favorites" if section == "favorites" else "Recipes"
            bar = Row(
                id="toolbar",
                height=64,
                pad=(4, 0, 4, 0),
                children=[
                    IconButton(
                        name="menu",
                        desc="Open navigation drawer",
                        tint="on_surface",
                        on_click=lambda: st.update(drawer=True),
                    ),
                    Text(text=title, size=22, weight=1, pad=(4, 0, 0, 0)),
                    action("search", "Search", start_search, id="action_search"),
                ],
            )
        layers: list[View] = [
            page(
                bar,
                Scroll(
                    id="recycler_view",
                    key="recipes",
                    weight=1,
                    pad=(12, 4, 12, 96),
                    spacing=8,
                    rows=Rows.of(cards),
                    empty=empty_state("note", empty),
                ),
            )
        ]
        if not st.get("searching"):
            layers.append(fab("add", "Add recipe", lambda: ctx.start(EDIT), id="fab"))
        if st.get("drawer"):
            layers.append(self.drawer(ctx))
        return Stack(children=layers)

    def card(self, r: dict[str, Any], on_click: Callable[[], None]) -> View:
        """A recipe's card in the list: its title and the first lines of its description."""
        return Column(
            id="card_view",
            bg="surface_container",
            radius=12,
            pad=(16, 12, 16, 12),
            height=92,
            on_click=on_click,
            children=[
                Text(id="card_text_view_title", text=str(r["title"]), size=18, medium=True),
                Text(
                    id="card_text_view_description",
                    text=str(r["description"]),
                    size=14,
                    lines=2,
                    color="on_surface_variant",
                ),
            ],
        )

    def drawer(self, ctx: ScreenContext) -> View:
        st = ctx.state

        def close() -> None:
            st.pop("drawer", None)

        def go(section: str) -> Callable[[], None]:
            def run() -> None:
                st["section"] = section
                st.pop("scroll", None)
                close()

            return run

        ctx.on_back(close)
        current = str(st.get("section", "recipes"))
        panel = Column(
            id="nav_view",
            bg="surface_container",
            height=900,  # the drawer runs the height of the screen
            width=300,
            blocks=True,
            pad=(12, 24, 12, 12),
            children=[
                Text(text="Broccoli", size=22, medium=True, pad=(16, 8, 16, 16)),
                list_item(
                    "Recipes",
                    icon="note",
                    on_click=go("recipes"),
                    selected=current == "recipes",
                    id="nav_recipes",
                ),
                list_item(
                    "Favorites",
                    icon="star",
                    on_click=go("favorites"),
                    selected=current == "favorites",
                    id="nav_favorites",
                ),
            ],
        )
        return Scrim(on_click=close, children=[panel])

    def details(self, ctx: ScreenContext) -> View:
        st = ctx.state
        rid = int(ctx.extras.get("recipe_id", 0))
        r = self.recipe(rid)
        if r is None:
            return Column(
                bg="surface", children=[app_bar("", back=ctx.finish), empty_state("note", "Not found")]
            )
        db = self.db_file(DB)

        def toggle_favorite() -> None:
            sql(db, "UPDATE recipes SET favorite = ? WHERE recipeId = ?", (0 if r["favorite"] else 1, rid))

        def delete() -> None:
            sql(db, "DELETE FROM recipes WHERE recipeId = ?", (rid,))
            ctx.finish()

        def close() -> None:
            st.pop("dialog", None)

        actions: list[View] = [
            action(
                "star" if r["favorite"] else "star_outline",
                "Remove from favorites" if r["favorite"] else "Add to favorites",
                toggle_favorite,
                id="action_favorite",
            ),
            action("edit", "Edit", lambda: ctx.start(EDIT, {"recipe_id": rid}), id="action_edit"),
            action("more_vert", "More options", lambda: st.update(dialog="menu")),
        ]
        facts: list[View] = []
        for key, rid_name in (
            ("servings", "servings"),
            ("preparationTime", "preparation_time"),
            ("source", "source"),
        ):
            if r[key]:
                facts.append(
                    list_item(
                        str(r[key]),
                        LABELS[key],
                        id=f"details_{rid_name}",
                        title_id=f"text_view_{rid_name}",
                        subtitle_id=f"label_{rid_name}",
                    )
                )
        tab = int(st.get("tab", 0))
        section = "ingredients" if tab == 0 else "directions"
        body: list[View] = [
            Text(id="details_title", text=str(r["title"]), size=28, lines=3, pad=(16, 8, 16, 8)),
        ]
        if r["description"]:
            body.append(
                Text(
                    id="details_description",
                    text=str(r["description"]),
                    size=16,
                    lines=6,
                    color="on_surface_variant",
                    pad=(16, 0, 16, 8),
                )
            )
        body += facts
        body.append(tabs(("Ingredients", "Directions"), tab, lambda i: st.update(tab=i)))
        body.append(
            Text(
                id=f"details_{section}", text=str(r[section]) or "—", size=16, lines=40, pad=(16, 12, 16, 24)
            )
        )
        layers: list[View] = [
            Column(
                bg="surface",
                children=[
                    app_bar("", back=ctx.finish, actions=actions),
                    Scroll(key="details", weight=1, children=body),
                ],
            )
        ]
        if st.get("dialog") == "menu":
            ctx.on_back(close)
            menu = Column(
                id="popup_menu",
                bg="surface_container",
                radius=4,
                width=200,
                align="top_end",
                blocks=True,
                pad=(0, 8, 0, 8),
                children=[
                    list_item("Share", on_click=close, title_id="android:id/title"),
                    list_item(
                        "Delete", on_click=lambda: st.update(dialog="delete"), title_id="android:id/title"
                    ),
                ],
            )
            layers.append(Scrim(dim=0.0, on_click=close, children=[menu]))
        elif st.get("dialog") == "delete":
            ctx.on_back(close)
            layers.append(
                dialog(
                    "Delete recipe",
                    [],
                    [("Cancel", close), ("Delete", delete)],
                    close,
                    message="Do you really want to delete this recipe?",
                )
            )
        return Stack(children=layers)

    def edit(self, ctx: ScreenContext) -> View:
        st = ctx.state
        rid = ctx.extras.get("recipe_id")
        existing = self.recipe(int(rid)) if rid is not None else None
        if not st.get("loaded"):
            st["loaded"] = True
            ctx.set_fields({k: str(existing[k]) for k in FIELDS} if existing else {})
            if existing is None:
                ctx.focus("title")

        def save() -> None:
            values = [ctx.field(k).strip() for k in FIELDS]
            if not values[0]:
                ctx.toast("Please enter a title.")
                return
            db = self.db_file(DB)
            if existing is not None:
                sets = ", ".join(f"{k} = ?" for k in FIELDS)
                sql(db, f"UPDATE recipes SET {sets} WHERE recipeId = ?", (*values, int(existing["recipeId"])))
            else:
                sql_insert(
                    db,
                    f"INSERT INTO recipes ({', '.join(FIELDS)}, imageName, favorite) VALUES"
                    f" ({', '.join('?' for _ in FIELDS)}, '', 0)",
                    values,
                )
            ctx.toast("Recipe saved")
            ctx.finish()

        form: list[View] = [header("Recipe")]
        for key in FIELDS:
            long_text = key in ("ingredients", "directions", "description")
            form.append(
                EditText(
                    id=f"new_{key.lower()}",
                    key=key,
                    hint=LABELS[key],
                    text=ctx.field(key),
                    multiline=long_text,
                    height=120 if long_text else 56,
                    lines=5 if long_text else 1,
                )
            )
        bar = app_bar(
            "Edit recipe" if existing else "New recipe",
            back=ctx.finish,
            actions=[action("check", "Save", save, id="action_save")],
        )
        return Column(
            bg="surface",
            children=[bar, Scroll(key="form", weight=1, pad=(16, 0, 16, 16), spacing=12, children=form)],
        )
