"""Simple SMS Messenger on the simulated device: it shows and writes the telephony provider's SMS,
titles conversations with contacts' names, and answers SENDTO as the default SMS app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "com.simplemobiletools.smsmessenger"
THREAD = f"{PKG}.activities.ThreadActivity"


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def sms(device: SimDevice) -> Any:
    provider, _ = device.services.providers.resolve("content://sms")
    return provider


def receive(device: SimDevice, address: str, body: str, date: int) -> None:
    sms(device).insert("content://sms/inbox", {"address": address, "body": body, "date": date, "read": 0})


def texts(s: Screen, name: str) -> list[str]:
    return [n.attrs["text"] for n in nodes(s.xml()) if n.attrs["resource-id"] == rid(name)]


def test_conversations_newest_first_and_a_reply_lands_in_sent(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    now = device.services.clock.now_ms()
    receive(device, "+15550001111", "first", now - 60_000)
    receive(device, "+15550002222", "hello there", now - 30_000)
    receive(device, "+15550001111", "later", now - 10_000)
    s = Screen(device)
    s.am.launch(PKG)
    assert texts(s, "conversation_address") == ["+15550001111", "+15550002222"]
    assert texts(s, "conversation_body_short") == ["later", "hello there"]
    s.tap(text="+15550002222", rid=rid("conversation_address"))
    assert texts(s, "thread_message_body") == ["hello there"]
    s.type_into("on my way", rid=rid("thread_type_message"))
    s.tap(text="SMS")
    _, rows = sms(device).query("content://sms/sent", ["address", "body", "type"], None, [], None)
    assert rows == [("+15550002222", "on my way", 2)]
    assert texts(s, "thread_message_body") == ["hello there", "on my way"]
    _, unread = sms(device).query("content://sms/inbox", ["body"], "read = 0", [], None)
    assert unread == [("later",), ("first",)]  # opening a thread marks only its messages read


def test_sms_queries_without_an_order_are_newest_first_as_on_android(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    for i, body in enumerate(("one", "two", "three")):
        receive(device, "+15550003333", body, 1_000 + i)
    _, rows = sms(device).query("content://sms/inbox", ["body"], None, [], None)
    assert rows == [("three",), ("two",), ("one",)]


def test_new_conversation_by_number_or_contact_name(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    device.services.apps["com.google.android.contacts"].db.create_contact(
        "Ada", "Lovelace", "+15550104444", ""
    )
    s = Screen(device)
    s.am.launch(PKG)
    s.tap(desc="New conversation")
    s.wm.text("Ada")
    assert texts(s, "item_contact_number") == ["+15550104444"]
    s.tap(text="Ada Lovelace", rid=rid("item_contact_name"))
    assert s.am.resumed() == (PKG, THREAD)
    assert find(s.xml(), rid=rid("thread_title")).attrs["text"] == "Ada Lovelace"
    s.type_into("hi Ada", rid=rid("thread_type_message"))
    s.tap(text="SMS")
    s.wm.key(4)  # keyboard
    s.wm.key(4)  # back to the conversations
    assert texts(s, "conversation_address") == ["Ada Lovelace"]
    s.tap(desc="New conversation")
    s.wm.text("+15550109999")
    s.tap(desc="Confirm")
    s.type_into("to a number", rid=rid("thread_type_message"))
    s.tap(text="SMS")
    _, rows = sms(device).query("content://sms/sent", ["address", "body"], None, [], "_id")
    assert rows == [("+15550104444", "hi Ada"), ("+15550109999", "to a number")]


def test_sendto_opens_the_thread_with_the_body_ready_to_send(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    s = Screen(device)
    error = s.am.start(
        None, action="android.intent.action.SENDTO", data="sms:+15550105555", extras={"sms_body": "resend me"}
    )
    assert error is None
    assert s.am.resumed() == (PKG, THREAD)
    assert find(s.xml(), rid=rid("thread_type_message")).attrs["text"] == "resend me"
    s.tap(text="SMS")
    _, rows = sms(device).query("content://sms/sent", ["address", "body"], None, [], None)
    assert rows == [("+15550105555", "resend me")]


def test_rows_an_agent_wrote_with_odd_values_still_show(tmp_path: Path) -> None:
    """`content insert` can put text in date or read and megabytes in a body; the list still draws."""
    device = boot_device(tmp_path)
    odd = {"address": "+15550106666", "body": "x " * 500_000, "date": "soon", "read": "no"}
    sms(device).insert("content://sms/inbox", odd)
    receive(device, "+15550107777", "line\rbreak\u2029para", 5)
    s = Screen(device)
    s.am.launch(PKG)
    assert texts(s, "conversation_address") == ["+15550107777", "+15550106666"]
    s.tap(text="+15550106666", rid=rid("conversation_address"))
    assert s.am.resumed() == (PKG, THREAD)
    assert s.wm.screencap_png().startswith(b"\x89PNG")
