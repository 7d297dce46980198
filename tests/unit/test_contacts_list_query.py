"""The contacts list's query costs SQLite work linear in the contacts: a shell can insert 20,000, and
without ContactsProvider2's indexes each contact's phone was found by scanning every data row (the
Phone app's contacts tab ~20 s a frame, Messages' lists slowed by their names)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mgfarm.sim.apps.contacts import LIST, NAME, PHONE, ContactsDb


def steps(tmp_path: Path, count: int) -> int:
    path = tmp_path / f"contacts{count}.db"
    ContactsDb(lambda: path).create()
    with sqlite3.connect(path) as conn:
        starred = [(i % 3 == 0,) for i in range(count)]
        conn.executemany("INSERT INTO raw_contacts (starred) VALUES (?)", starred)
        for mimetype, value in ((NAME, "Person {}"), (PHONE, "555{}")):
            conn.executemany(
                "INSERT INTO view_data (raw_contact_id, mimetype, data1) VALUES (?, ?, ?)",
                [(i + 1, mimetype, value.format(i)) for i in range(count)],
            )
        ops = [0]

        def tick() -> int:
            ops[0] += 1
            return 0

        conn.set_progress_handler(tick, 100)
        rows = conn.execute(LIST).fetchall()
    conn.close()
    assert len(rows) == count and rows[0][4] == "5550"  # "Person 0" first, with its number
    return ops[0]


def test_the_contacts_list_costs_sqlite_work_linear_in_the_contacts(tmp_path: Path) -> None:
    small, large = steps(tmp_path, 500), steps(tmp_path, 2_000)
    assert large < 6 * small  # 4x the contacts: ~4.5x the work (the sort); scanning made it ~16x
