"""The check library the catalog's YAML names: one module per app plus generic checks.

Each module defines its checks (functions marked with `mgfarm.tasks.judge.check`) and declares its
app's data as module constants: `DATABASES`, `ENTITIES` and `INCIDENTAL`. Importing a module
registers nothing; `mgfarm.catalog.load_catalog` reads them into a `Catalog`.
"""
