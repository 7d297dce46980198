"""The floating text toolbar a long press on a field opens (here in Markor's editor), as on Android
13: the word at the caret is selected, Select all widens it, Copy and Cut fill the clipboard that
Clipper reads back, Paste replaces the selection, BACK dismisses the toolbar."""

from __future__ import annotations

from pathlib import Path

from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen, find

PKG = "net.gsantner.markor"
EDITOR = f"{PKG}:id/document__fragment__edit__highlighting_editor"
KEY_BACK = 4


def new_note(s: Screen, text: str) -> None:
    s.am.launch(PKG)
    s.tap(desc="Create a new file or folder")
    s.wm.text("scratch")
    s.tap(text="OK")
    s.tap(rid=EDITOR)
    s.wm.text(text)
    s.wm.key(KEY_BACK)  # the keyboard


def long_press_editor(s: Screen) -> None:
    x, y = find(s.xml(), rid=EDITOR).center
    s.wm.long_press(x, y)


def clip(shell: ShellDevice) -> str:
    return shell.run("am broadcast -a clipper.get").text.rsplit('data="', 1)[1].rstrip('"\n')


def test_copy_takes_the_word_and_select_all_then_copy_the_whole_text(tmp_path: Path) -> None:
    shell = ShellDevice(tmp_path)
    try:
        s = Screen(shell.device)
        new_note(s, "Acme Corp, Suite 200")
        assert not s.has(text="Copy")
        long_press_editor(s)
        assert not s.has(text="Paste")  # the clipboard is empty
        s.tap(text="Copy", rid="android:id/copy")
        assert clip(shell) == "200"
        assert not s.has(text="Copy")  # the toolbar closes once it acted
        long_press_editor(s)
        s.tap(text="Select all")
        assert not s.has(text="Select all")  # everything is selected now
        s.tap(text="Copy")
        assert clip(shell) == "Acme Corp, Suite 200"
        assert find(s.xml(), rid=EDITOR).attrs["text"] == "Acme Corp, Suite 200"  # copy leaves the text
    finally:
        shell.close()


def test_cut_and_paste_replace_the_selection_and_back_dismisses_the_toolbar(tmp_path: Path) -> None:
    shell = ShellDevice(tmp_path)
    try:
        s = Screen(shell.device)
        new_note(s, "two words")
        long_press_editor(s)
        if s.wm.keyboard_shown():  # the press focused the field: BACK hides the keyboard first
            s.wm.key(KEY_BACK)
        s.wm.key(KEY_BACK)
        assert not s.has(text="Cut")
        assert find(s.xml(), rid=EDITOR).attrs["text"] == "two words"  # BACK closed only the toolbar
        long_press_editor(s)
        s.tap(text="Cut")
        assert clip(shell) == "words"
        assert find(s.xml(), rid=EDITOR).attrs["text"] == "two "
        long_press_editor(s)
        s.tap(text="Paste")  # the word "two" is selected: the clip replaces it
        assert find(s.xml(), rid=EDITOR).attrs["text"] == "words "
    finally:
        shell.close()
