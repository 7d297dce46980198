"""Contacts' editor (Google Contacts): the phone number's label below its field, Mobile until another
type is picked from its dropdown, saved as the number's Phone.TYPE and shown again when editing."""

from __future__ import annotations

from pathlib import Path

from tests.unit.sim_screen import BOUNDS, Screen, boot_device, find, nodes

PKG = "com.google.android.contacts"
ID = f"{PKG}:id/"


def test_the_phone_label_is_picked_below_the_number_and_saved_as_its_type(tmp_path: Path) -> None:
    device = boot_device(tmp_path)
    s = Screen(device)
    s.am.launch(PKG)
    s.tap(desc="Create contact")
    s.type_into("Grace", rid=ID + "first_name")
    s.type_into("555-010-2030", rid=ID + "phone")
    label = BOUNDS.fullmatch(find(s.xml(), text="Mobile", desc="Mobile Phone").attrs["bounds"])
    field = BOUNDS.fullmatch(find(s.xml(), rid=ID + "phone").attrs["bounds"])
    assert label and field and int(label[2]) >= int(field[4])  # the label is below the number
    s.tap(desc="Mobile Phone")
    assert [n.attrs["text"] for n in nodes(s.xml()) if n.attrs["text"] in ("Home", "Work", "Other")] == [
        "Work",
        "Home",
        "Other",
    ]
    s.tap(text="Home")
    assert s.has(text="Home", desc="Home Phone") and not s.has(desc="Mobile Phone")
    assert find(s.xml(), rid=ID + "first_name").attrs["text"] == "Grace"  # the fields keep their text
    s.tap(text="Save")
    book = device.services.apps[PKG].db  # type: ignore[attr-defined]
    (contact,) = book.list()
    assert book.get(contact.contact_id).phone_type == 1  # Phone.TYPE_HOME
    assert s.has(text="Home", rid=ID + "sub_header")  # the details name the number's type
    s.tap(desc="Edit")
    assert s.has(text="Home", desc="Home Phone")
