"""AndroidWorld's Simple SMS Messenger tasks, unchanged, against the simulated app.

Each task: AndroidWorld's `initialize_task` works (texts arrive through the emulator console, contacts
through the contacts app's INSERT intent), `is_successful` is 0.0 before anything is done and 1.0 after
a scripted solution that only taps, types and scrolls what the UI tree shows (uiautomator2). AndroidWorld
comes from $MGFARM_ANDROID_WORLD; without it these tests skip. The tasks sleep as AndroidWorld does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device
from tests.integration.test_aw_markor import World, check_task, launch, new_note, scroll_to, with_ui

__all__ = ["aw_device"]

PKG = "com.simplemobiletools.smsmessenger"


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def open_conversation(w: World, title: str) -> None:
    scroll_to(w, resourceId=rid("conversation_address"), text=title).click()


def bubbles(w: World) -> list[str]:
    found = w.ui(resourceId=rid("thread_message_body"))
    return [str(found[i].get_text()) for i in range(found.count)]


def type_and_send(w: World, message: str) -> None:
    w.ui(resourceId=rid("thread_type_message")).set_text(message)
    w.ui(text="SMS").click()


def new_conversation(w: World, to: str, pick_contact: bool = False) -> None:
    w.ui(description="New conversation").click()
    w.ui(resourceId=rid("new_conversation_address")).set_text(to)
    if pick_contact:
        w.ui(resourceId=rid("item_contact_name"), text=to).click()
    else:
        w.ui(description="Confirm").click()


@pytest.fixture(scope="module")
def w(aw_device: AwDevice) -> Iterator[World]:
    yield from with_ui(aw_device)


def sms(name: str) -> Any:
    from android_world.task_evals.single import sms as tasks

    return getattr(tasks, name)


# ---- one solution per task class (tests/integration/aw_scripted.py plays them as an agent)
def send(w: World, p: dict[str, Any]) -> None:
    launch(w, "simple sms messenger")
    new_conversation(w, p["number"])
    type_and_send(w, p["message"])


def reply_most_recent(w: World, p: dict[str, Any]) -> None:
    launch(w, "simple sms messenger")
    w.ui(resourceId=rid("conversation_address"))[0].click()  # newest conversation first
    type_and_send(w, p["message"])


def reply(w: World, p: dict[str, Any]) -> None:
    launch(w, "simple sms messenger")
    open_conversation(w, p["number"])
    type_and_send(w, p["message"])


def send_received_address(w: World, p: dict[str, Any]) -> None:
    launch(w, "simple sms messenger")
    open_conversation(w, p["name2"])
    address = bubbles(w)[-1]
    w.ui.press("back")
    new_conversation(w, p["name1"], pick_contact=True)
    type_and_send(w, address)


def resend(w: World, p: dict[str, Any]) -> None:
    launch(w, "simple sms messenger")
    open_conversation(w, p["name"])
    sent = bubbles(w)[-2]  # the message before their "what was the last message" reply
    type_and_send(w, sent)


def send_clipboard_content(w: World, p: dict[str, Any]) -> None:
    """AndroidWorld sets the clipboard through the Clipper app; the message gets it by long press, Paste."""
    launch(w, "simple sms messenger")
    new_conversation(w, p["number"])
    w.ui(resourceId=rid("thread_type_message")).long_click()
    w.ui(text="Paste").click()
    w.ui(text="SMS").click()


def markor_create_note_and_sms(w: World, p: dict[str, Any]) -> None:
    launch(w, "markor")
    new_note(w, p["file_name"], p["text"])
    launch(w, "simple sms messenger")
    new_conversation(w, p["number"])
    type_and_send(w, p["text"])


SOLUTIONS: dict[str, Callable[[World, dict[str, Any]], None]] = {
    "SimpleSmsSend": send,
    "SimpleSmsReplyMostRecent": reply_most_recent,
    "SimpleSmsReply": reply,
    "SimpleSmsSendReceivedAddress": send_received_address,
    "SimpleSmsResend": resend,
    "SimpleSmsSendClipboardContent": send_clipboard_content,
    "MarkorCreateNoteAndSms": markor_create_note_and_sms,
}


@pytest.mark.parametrize("seed", (1, 2))
def test_send(w: World, seed: int) -> None:
    check_task(w, sms("SimpleSmsSend"), seed, send)


@pytest.mark.parametrize("seed", (1, 3))
def test_reply_most_recent(w: World, seed: int) -> None:
    check_task(w, sms("SimpleSmsReplyMostRecent"), seed, reply_most_recent)


@pytest.mark.parametrize("seed", (1, 2))
def test_reply(w: World, seed: int) -> None:
    check_task(w, sms("SimpleSmsReply"), seed, reply)


def test_send_received_address(w: World) -> None:
    check_task(w, sms("SimpleSmsSendReceivedAddress"), 1, send_received_address)


def test_resend(w: World) -> None:
    check_task(w, sms("SimpleSmsResend"), 1, resend)


def test_send_clipboard_content(w: World) -> None:
    check_task(w, sms("SimpleSmsSendClipboardContent"), 1, send_clipboard_content)


def test_markor_create_note_and_sms(w: World) -> None:
    from android_world.task_evals.composite import markor_sms

    check_task(w, markor_sms.MarkorCreateNoteAndSms, 1, markor_create_note_and_sms)
