"""Files: the Files app (DocumentsUI) over shared storage; the checks are `files.*` in generic.py."""

from __future__ import annotations

from mgfarm.tasks.apps import declare_app

declare_app("files", "com.google.android.documentsui", None, "Files")
