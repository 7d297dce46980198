"""The state diff on each app's real database layout: one logical edit is one change, nothing hides.

The databases are created from the simulated apps' schemas (the AOSP layouts) and edited the way
the apps and content providers edit them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.catalog import load_catalog
from mgfarm.sim.apps import calendar, clock, contacts, dialer, expense, messages
from mgfarm.sim.apps.base import sql_script
from mgfarm.tasks.state import Change, StateSnapshot, diff, read_database

ENTITIES = load_catalog([]).state.entities  # the contacts entity is declared by its verifier module


def snap(db: str, path: Path) -> StateSnapshot:
    return StateSnapshot(tables=read_database(db, path, ENTITIES))


def edit_and_diff(db: str, path: Path, change: Callable[[sqlite3.Connection], object]) -> list[Change]:
    before = snap(db, path)
    conn = sqlite3.connect(path)
    with conn:
        change(conn)
    conn.close()
    return diff(before, snap(db, path))


@pytest.fixture
def contacts_db(tmp_path: Path) -> contacts.ContactsDb:
    path = tmp_path / "contacts2.db"
    book = contacts.ContactsDb(lambda: path)
    book.create()
    book.create_contact("Ada", "Lovelace", "+1 415 555 0101", "ada@example.com")
    book.create_contact("Alan", "Turing", "4155550102", "")
    return book


def test_a_new_contact_is_one_insert_with_its_phones_and_emails(contacts_db: contacts.ContactsDb) -> None:
    path = contacts_db.path()
    before = snap("contacts", path)
    contacts_db.create_contact("Grace", "Hopper", "(212) 555-0103", "grace@example.org")
    changes = diff(before, snap("contacts", path))
    assert [(c.kind, c.where) for c in changes] == [("insert", "contacts.contact")]
    row = changes[0].after or {}
    assert row["display_name"] == "Grace Hopper"
    assert row["phones"] == ("(212) 555-0103",) and row["emails"] == ("grace@example.org",)
    assert "Grace Hopper" in changes[0].line()


def test_a_changed_number_is_one_update_of_phones(contacts_db: contacts.ContactsDb) -> None:
    path = contacts_db.path()
    changes = edit_and_diff(
        "contacts",
        path,
        lambda c: c.execute(
            "UPDATE view_data SET data1 = '5550000000' WHERE mimetype = ? AND data1 = '4155550102'",
            (contacts.PHONE,),
        ),
    )
    assert [(c.kind, c.columns()) for c in changes] == [("update", ["phones"])]
    assert "phones ('4155550102',) -> ('5550000000',)" in changes[0].line()


def test_starring_and_deleting_a_contact(contacts_db: contacts.ContactsDb) -> None:
    path = contacts_db.path()
    starred = edit_and_diff(
        "contacts", path, lambda c: c.execute("UPDATE contacts SET starred = 1 WHERE _id = 1")
    )
    assert [(c.kind, c.key, c.columns()) for c in starred] == [("update", "1", ["starred"])]
    gone = edit_and_diff("contacts", path, lambda c: c.execute("DELETE FROM contacts WHERE _id = 2"))
    assert [(c.kind, c.key) for c in gone] == [("delete", "2")]
    assert (gone[0].before or {})["display_name"] == "Alan Turing"


def test_an_email_added_through_the_data_table_is_seen(contacts_db: contacts.ContactsDb) -> None:
    changes = edit_and_diff(
        "contacts",
        contacts_db.path(),
        lambda c: c.execute(
            "INSERT INTO view_data (raw_contact_id, mimetype, data1) VALUES (2, ?, 'alan@example.com')",
            (contacts.EMAIL,),
        ),
    )
    assert [(c.kind, c.columns()) for c in changes] == [("update", ["emails"])]


def make(tmp_path: Path, name: str, schema: str, seed: Any = ()) -> Path:
    path = tmp_path / name
    sql_script(path, schema, seed)
    return path


def test_sms_sent_is_an_insert_and_its_thread_rows_are_separate(tmp_path: Path) -> None:
    path = make(tmp_path, "mmssms.db", messages.SCHEMA)
    changes = edit_and_diff(
        "sms",
        path,
        lambda c: c.execute("INSERT INTO sms (address, body, date, type) VALUES ('5551234567', 'hi', 1, 2)"),
    )
    wheres = sorted({c.where for c in changes})
    assert wheres == ["sms.canonical_addresses", "sms.sms", "sms.threads"]
    [sms] = [c for c in changes if c.where == "sms.sms"]
    assert sms.kind == "insert" and (sms.after or {})["body"] == "hi"


def test_call_alarm_event_and_expense_rows(tmp_path: Path) -> None:
    calls = make(tmp_path, "calllog.db", dialer.SCHEMA)
    made = edit_and_diff(
        "calllog", calls, lambda c: c.execute("INSERT INTO calls (number, type) VALUES ('555', 2)")
    )
    assert [(c.kind, c.where, c.key) for c in made] == [("insert", "calllog.calls", "1")]

    alarms = make(tmp_path, "alarms.db", clock.SCHEMA, clock.SEED)
    toggled = edit_and_diff("alarms", alarms, lambda c: c.execute("UPDATE alarm_templates SET enabled = 1"))
    assert [(c.kind, c.columns()) for c in toggled] == [("update", ["enabled"])] * 2

    events = make(tmp_path, "calendar.db", calendar.SCHEMA, calendar.SEED)
    added = edit_and_diff(
        "calendar",
        events,
        lambda c: c.execute("INSERT INTO Events (calendar_id, title, dtstart) VALUES (1, 'Lunch', 5)"),
    )
    assert [(c.kind, c.where) for c in added] == [("insert", "calendar.Events")]

    money = make(tmp_path, "accounting.db", expense.SCHEMA, expense.SEED)
    fixed = edit_and_diff(
        "expense", money, lambda c: c.execute("UPDATE expense SET amount = 1 WHERE expense_id = 3")
    )
    assert [(c.kind, c.key, c.columns()) for c in fixed] == [("update", "3", ["amount"])]


def test_null_and_empty_text_are_the_same(tmp_path: Path) -> None:
    events = make(tmp_path, "calendar.db", calendar.SCHEMA, calendar.SEED)
    conn = sqlite3.connect(events)
    with conn:
        conn.execute("INSERT INTO Events (calendar_id, title, description) VALUES (1, 'x', NULL)")
    conn.close()
    changes = edit_and_diff("calendar", events, lambda c: c.execute("UPDATE Events SET description = ''"))
    assert changes == []


def test_a_table_without_a_primary_key_is_keyed_by_rowid(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE log (msg TEXT); INSERT INTO log VALUES ('a'), ('a');")
    conn.close()
    changes = edit_and_diff("x", path, lambda c: c.execute("INSERT INTO log VALUES ('a')"))
    assert [(c.kind, c.where, c.key) for c in changes] == [("insert", "x.log", "3")]


ROWS = st.dictionaries(st.integers(1, 30), st.tuples(st.text(max_size=4), st.integers(0, 3)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(before=ROWS, after=ROWS)
def test_every_row_difference_is_reported_exactly_once(
    before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]]
) -> None:
    def table(rows: dict[int, tuple[str, int]]) -> StateSnapshot:
        return StateSnapshot(tables={"db.t": {str(k): {"name": n, "n": v} for k, (n, v) in rows.items()}})

    changes = diff(table(before), table(after))
    keys = [int(c.key) for c in changes]
    assert len(keys) == len(set(keys))
    expected = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    # '' and NULL never occur here, so every difference must show up, and nothing else.
    assert set(keys) == expected
    for c in changes:
        assert c.kind == (
            "insert" if int(c.key) not in before else "delete" if int(c.key) not in after else "update"
        )
