"""Markor on the simulated device: notes are the real files under Documents/Markor, changed only
through the app's screens here (long press, dialogs, the editor), and hostile files cannot hurt it."""

from __future__ import annotations

import os
from pathlib import Path

from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "net.gsantner.markor"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
KEY_BACK, KEY_DEL = 4, 67
VIEW = "android.intent.action.VIEW"


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def notebook(device: SimDevice) -> Path:
    return device.fs.host(NOTEBOOK)


def long_press(s: Screen, text: str) -> None:
    x, y = find(s.xml(), text=text, rid=rid("ui__filesystem_item__title")).center
    s.wm.long_press(x, y)


def replace_field(s: Screen, old: str, new: str) -> None:
    """Delete the prefilled text key by key, then type, as a keyboard would."""
    for _ in old:
        s.wm.key(KEY_DEL)
    s.wm.text(new)


def titles(s: Screen) -> list[str]:
    return [
        n.attrs["text"] for n in nodes(s.xml()) if n.attrs["resource-id"] == rid("ui__filesystem_item__title")
    ]


def test_a_new_note_is_a_file_with_the_typed_text_saved_on_leaving(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    s = Screen(device)
    s.am.launch(PKG)
    assert notebook(device).is_dir()  # Markor makes its notebook folder
    s.tap(desc="Create a new file or folder")
    s.wm.text("groceries")
    s.tap(text="OK")
    assert (notebook(device) / "groceries.md").read_bytes() == b""  # created empty, the editor opens
    s.tap(rid=rid("document__fragment__edit__highlighting_editor"))
    s.wm.text("milk")
    s.wm.key(66)  # ENTER: a new line in the note
    s.wm.text("eggs")
    s.wm.key(KEY_BACK)  # the keyboard goes first
    s.wm.key(KEY_BACK)  # leaving the editor saves
    assert (notebook(device) / "groceries.md").read_text() == "milk\neggs"
    assert titles(s) == ["groceries.md"]
    s.tap(text="groceries.md")
    assert (
        find(s.xml(), rid=rid("document__fragment__edit__highlighting_editor")).attrs["text"] == "milk\neggs"
    )


def test_names_with_an_extension_keep_it_and_an_empty_extension_adds_none(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    s = Screen(device)
    s.am.launch(PKG)
    for name, ext_keys, expected in (("plan.txt", 0, "plan.txt"), ("raw", 3, "raw")):
        s.tap(desc="Create a new file or folder")
        s.wm.text(name)
        s.tap(rid=rid("new_file_dialog__ext"))
        for _ in range(ext_keys):
            s.wm.key(KEY_DEL)
        s.tap(text="OK")
        s.wm.key(KEY_BACK)
        assert (notebook(device) / expected).is_file()
    s.tap(desc="Create a new file or folder")
    s.wm.text("Trips")
    s.tap(text="Folder")
    assert (notebook(device) / "Trips").is_dir()


def test_rename_move_and_delete_after_a_long_press(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    (notebook(device) / "Work").mkdir()
    (notebook(device) / "Work" / "Old").mkdir()
    (notebook(device) / "a.md").write_text("alpha\n")
    (notebook(device) / "b.md").write_text("beta\n")
    s = Screen(device)
    s.am.launch(PKG)
    assert titles(s) == ["Work", "a.md", "b.md"]  # folders first, then by name
    long_press(s, "a.md")
    assert s.has(text="1 selected")
    s.tap(desc="Rename")
    replace_field(s, "a.md", "first.md")
    s.tap(text="OK")
    assert (notebook(device) / "first.md").read_text() == "alpha\n"
    assert not (notebook(device) / "a.md").exists()
    long_press(s, "first.md")
    s.tap(desc="Move")
    s.tap(text="Work", rid=rid("move_item_title"))
    s.tap(text="Old", rid=rid("move_item_title"))
    s.tap(text="OK")
    assert (notebook(device) / "Work" / "Old" / "first.md").read_text() == "alpha\n"
    long_press(s, "b.md")
    s.tap(desc="Delete")
    s.tap(text="Cancel")
    assert (notebook(device) / "b.md").exists()
    s.tap(desc="Delete")
    s.tap(text="OK")
    assert not (notebook(device) / "b.md").exists()
    assert titles(s) == ["Work"]


def test_select_all_deletes_everything_and_sort_by_date_puts_the_newest_first(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    for i, name in enumerate(("old.md", "newest.md", "middle.md")):
        path = notebook(device) / name
        path.write_text(name)
        os.utime(path, (1_700_000_000 + [0, 200, 100][i],) * 2)
    s = Screen(device)
    s.am.launch(PKG)
    s.tap(desc="Sort by date")
    assert titles(s) == ["newest.md", "middle.md", "old.md"]
    long_press(s, "middle.md")
    s.tap(desc="Select all")
    assert s.has(text="3 selected")
    s.tap(desc="Delete")
    s.tap(text="OK")
    assert list(notebook(device).iterdir()) == []


def test_bad_names_huge_files_and_a_missing_notebook_do_no_harm(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    s = Screen(device)
    s.am.launch(PKG)
    for bad in ("../escape", "a/b", ".."):
        s.tap(desc="Create a new file or folder")
        s.wm.text(bad)
        s.tap(text="OK")
        s.wm.key(KEY_BACK)
        s.wm.key(KEY_BACK)
    assert sorted(p.name for p in notebook(device).iterdir()) == []
    assert not (notebook(device).parent / "escape.md").exists()
    big = notebook(device) / "big.txt"
    big.write_bytes(b"x" * (2 << 20))
    s.am.launch(PKG)
    s.tap(text="big.txt")
    editor = find(s.xml(), rid=rid("document__fragment__edit__highlighting_editor"))
    assert editor.attrs["enabled"] == "false"
    s.wm.key(KEY_BACK)
    assert big.stat().st_size == 2 << 20  # leaving did not rewrite what it could not show
    for p in notebook(device).iterdir():
        p.unlink()
    notebook(device).rmdir()  # AndroidWorld's clear_device_storage can remove the notebook itself
    s.am.launch(PKG)
    assert s.has(text="No notes yet: tap + to create one")
    s.tap(desc="Create a new file or folder")
    s.wm.text("again")
    s.tap(text="OK")
    assert (notebook(device) / "again.md").is_file()


def test_clipper_broadcasts_fill_the_clipboard_that_a_long_press_pastes(tmp_path: Path) -> None:
    from tests.unit.shellkit import ShellDevice

    shell = ShellDevice(tmp_path)
    try:
        set_out = shell.run("am broadcast -a clipper.set -e text 'two words'").text
        assert set_out.endswith('Broadcast completed: result=-1, data="Text is copied into clipboard."\n')
        assert shell.run("am broadcast -a clipper.get").text.endswith('result=-1, data="two words"\n')
        assert shell.run("am broadcast -a some.other.action").text.endswith("Broadcast completed: result=0\n")
        s = Screen(shell.device)
        s.am.launch(PKG)
        s.tap(desc="Create a new file or folder")
        s.wm.text("clip")
        s.tap(text="OK")
        assert not s.has(text="Paste")
        x, y = find(s.xml(), rid=rid("document__fragment__edit__highlighting_editor")).center
        s.wm.long_press(x, y)
        s.tap(text="Paste")
        assert not s.has(text="Paste")
        s.wm.key(KEY_BACK)
        s.wm.key(KEY_BACK)
        assert (notebook(shell.device) / "clip.md").read_text() == "two words"
    finally:
        shell.close()


def test_any_typed_name_creates_at_most_one_entry_inside_the_notebook(tmp_path: Path) -> None:
    """Whatever an agent types as a name (slashes, dots, control characters, very long), Markor
    creates nothing outside its notebook and never more than the one note or folder asked for."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    device = boot_device(tmp_path)
    s = Screen(device)
    outside = notebook(device).parent

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.text(min_size=1, max_size=300), folder=st.booleans())
    def check(name: str, folder: bool) -> None:
        before = {p.name for p in outside.iterdir()}
        existing = set(notebook(device).iterdir()) if notebook(device).is_dir() else set()
        s.am.force_stop(PKG)
        s.am.launch(PKG)
        s.tap(desc="Create a new file or folder")
        s.wm.text(name)
        s.tap(text="Folder" if folder else "OK")
        assert {p.name for p in outside.iterdir()} == before
        created = set(notebook(device).iterdir()) - existing
        assert len(created) <= 1
        for path in created:
            assert path.parent == notebook(device) and "/" not in path.name
            assert path.is_dir() == folder

    check()


def test_names_with_line_separators_still_draw(tmp_path: Path) -> None:
    """An agent can name a file with \\r or U+0085 through the shell; the list still draws and dumps."""
    device = boot_device(tmp_path)
    for name in ("a\rb.md", "c\x85d.md", "e\u2029f.md", "g\x1ch.md"):
        (notebook(device) / name).write_text("x")
    s = Screen(device)
    s.am.launch(PKG)
    assert len(titles(s)) == 4
    assert s.wm.screencap_png().startswith(b"\x89PNG")


def test_the_editor_opens_only_regular_files_in_shared_storage(tmp_path: Path) -> None:
    """A FIFO would block the device; app data is not Markor's to read (as on Android)."""
    device = boot_device(tmp_path)
    os.mkfifo(notebook(device) / "pipe.md")
    s = Screen(device)
    editor = rid("document__fragment__edit__highlighting_editor")
    for path in (f"{NOTEBOOK}/pipe.md", "/data/system/packages.xml"):
        error = s.am.start(None, action=VIEW, data=f"file://{path}", mime_type="text/plain")
        assert error is None and s.am.resumed() == (PKG, "net.gsantner.markor.activity.DocumentActivity")
        assert find(s.xml(), rid=editor).attrs["enabled"] == "false"
        s.wm.key(KEY_BACK)
    (notebook(device) / "ok.md").write_text("fine\n")
    s.am.start(None, action=VIEW, data=f"file://{NOTEBOOK}/ok.md", mime_type="text/markdown")
    assert find(s.xml(), rid=editor).attrs["text"] == "fine\n"


def test_a_snapshot_load_restores_the_clipboard(tmp_path: Path) -> None:
    """What one episode copied must not leak into the next one loaded from the same snapshot."""
    from mgfarm.sim import snapshot

    device = boot_device(tmp_path)
    snapshot.save(device, "clean")
    device.services.clipboard.text = "the answer"
    snapshot.load(device, "clean")
    assert device.services.clipboard.text == ""
