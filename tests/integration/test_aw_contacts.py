"""AndroidWorld's ContactsAddContact, unchanged, on a simulated device with the default profile (Google's
Contacts, com.google.android.contacts, over the platform's com.android.contacts provider).

AndroidWorld clears the contacts provider in `initialize_task` and judges by `content query` on
content://contacts/phones; the solution fills the editor that the Create contact button opens.

ContactsNewContactDraft is not here: its validator finds the editor's fields by `hint_text` ("First
name", "Last name", "Phone"), which AndroidWorld fills only from the a11y forwarder's tree; from
`uiautomator dump` (xml_dump_to_ui_elements, the way it reads a simulated device) hint_text is always
None, so no solution can score 1.0. It also wants a phone-type label (Home, Work) below the number,
which the simulated editor does not have yet.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.aw_apps import AwDevice, aw_device, run_task

__all__ = ["aw_device"]

ID = "com.google.android.contacts:id/"


def add_contact(dev: AwDevice, task: Any, raw: dict[str, Any]) -> None:
    """Create contact, first and last name, the number, Save."""
    first, _, last = str(raw["name"]).partition(" ")
    dev.launch("contacts")
    dev.phone.tap(desc="Create contact")
    dev.type_into(first, rid=ID + "first_name")
    if last:
        dev.type_into(last, rid=ID + "last_name")
    dev.type_into(str(raw["number"]), rid=ID + "phone")
    dev.phone.tap(text="Save")


@pytest.mark.parametrize("seed", [1, 2])
def test_contacts_add_contact(aw_device: AwDevice, seed: int) -> None:
    from android_world.task_evals.single import contacts

    run_task(aw_device, contacts.ContactsAddContact, seed, add_contact)
