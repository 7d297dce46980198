"""The judge reads databases a hostile device wrote, in the trainer's process. A database it will not
or cannot read (too large, not a database, a column computed on every read, too many steps) stands
as one `__unreadable__` row: a change against the start state, so the policy that broke or bloated
it is never paid, and the trainer's memory and time stay bounded."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.catalog import load_catalog
from mgfarm.tasks import judge, state
from mgfarm.tasks.judge import CheckContext, JudgeResult, judge_instance
from mgfarm.tasks.schema import JudgeNode
from mgfarm.tasks.state import UNREADABLE, StateSnapshot, UnreadableData, capture, database_tables, diff
from tests.unit.shellkit import SimTaskDevice

SPEC = load_catalog([]).state
CONTACTS_DB = SPEC.databases["contacts"].path


def image(script: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.db"
        with sqlite3.connect(path) as conn:
            conn.executescript(script)
        conn.close()
        return path.read_bytes()


def test_a_database_read_normally_has_its_rows() -> None:
    tables = database_tables(
        "x", image("CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES (1, 'x');"), None, {}
    )
    assert tables == {"x.t": {"1": {"a": 1, "b": "x"}}}


@pytest.mark.parametrize(
    "data",
    [
        b"garbage\x01" * 64,  # not a database
        # ~4 KB on disk, but each read of a row would allocate 400 MB
        image(
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b AS (zeroblob(400000000)) VIRTUAL);"
            " INSERT INTO t(a) VALUES (1),(2);"
        ),
    ],
    ids=["garbage", "computed-column"],
)
def test_a_database_built_to_hurt_the_reader_is_unreadable(data: bytes) -> None:
    tables = database_tables("x", data, None, {})
    assert list(tables) == [f"x.{UNREADABLE}"]
    before = StateSnapshot(
        tables=database_tables(
            "x", image("CREATE TABLE t(a INTEGER PRIMARY KEY); INSERT INTO t VALUES (7);"), None, {}
        )
    )
    changes = diff(before, StateSnapshot(tables=tables))
    assert {c.where for c in changes} == {"x.t", f"x.{UNREADABLE}"}  # the rows are gone, and why is said


def test_a_read_over_its_steps_is_unreadable_never_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = image(
        "CREATE TABLE t(a INTEGER PRIMARY KEY); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c"
        " LIMIT 20000) INSERT INTO t SELECT x FROM c;"
    )
    assert len(database_tables("x", rows, None, {})["x.t"]) == 20000
    monkeypatch.setattr(state, "READ_STEPS", 10_000)
    state._parsed.clear()  # read again, not taken from the tables kept for these bytes
    assert list(database_tables("x", rows, None, {})) == [f"x.{UNREADABLE}"]


def test_a_database_over_the_size_limit_is_not_pulled(
    task_device: SimTaskDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert f"contacts.{UNREADABLE}" not in before.tables and CONTACTS_DB in task_device.pulled
    task_device.sh.host(CONTACTS_DB + "-wal").write_bytes(b"\0" * 300_000)  # what a bloated app left
    monkeypatch.setattr(state, "MAX_DATABASE_BYTES", 200_000)
    task_device.pulled.clear()
    after = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert CONTACTS_DB not in task_device.pulled and CONTACTS_DB + "-wal" not in task_device.pulled
    reason = after.tables[f"contacts.{UNREADABLE}"]["database"]["reason"]
    assert reason == "300000 bytes, over 200000"
    assert any(c.where == f"contacts.{UNREADABLE}" for c in diff(before, after))


def test_thousands_of_small_files_are_hashed_without_a_command_line_past_the_exec_limit(
    task_device: SimTaskDevice,
) -> None:
    # adbd runs `sh -c LINE`, and a device's exec takes 128 KiB an argument (MAX_ARG_STRLEN): a
    # capture naming every small file would fail on an emulator holding a few thousand.
    folder = task_device.sh.host("/sdcard/Documents")
    (folder / "many").mkdir()
    for i in range(2000):  # 150 kB of paths
        (folder / "many" / f"a-file-with-a-rather-long-name-{i}.txt").write_text(f"{i}\n")
    files = capture(task_device, SPEC).tables["files"]  # type: ignore[arg-type]
    many = {path: row for path, row in files.items() if "/Documents/many/" in path}
    assert len(many) == 2000 and all(row["sha1"] for row in many.values())
    seventh = "/storage/emulated/0/Documents/many/a-file-with-a-rather-long-name-7.txt"
    assert many[seventh]["sha1"] == hashlib.sha1(b"7\n").hexdigest()
    assert task_device.longest < 128 * 1024


def test_a_same_size_overwrite_of_a_file_too_large_to_hash_is_a_change(task_device: SimTaskDevice) -> None:
    # Files over HASH_LIMIT are not hashed (a capture would cost what the largest file does): their
    # modification and change times stand for their bytes.
    big = task_device.sh.host("/sdcard/Movies/big.mp4")
    big.write_bytes(b"a" * (state.HASH_LIMIT + 1))
    path = "/storage/emulated/0/Movies/big.mp4"
    before = capture(task_device, SPEC)  # type: ignore[arg-type]
    row = before.table("files")[path]
    assert row["sha1"] is None and row["times"] and row["size"] == state.HASH_LIMIT + 1
    assert capture(task_device, SPEC).table("files") == before.table("files")  # type: ignore[arg-type]
    task_device.sh.host("/data/local/tmp/same").write_bytes(b"b" * (state.HASH_LIMIT + 1))
    assert task_device.sh.run(f"cat /data/local/tmp/same > {path}").status == 0
    after = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert after.table("files")[path]["size"] == row["size"]
    changes = diff(before, after)
    assert [(c.where, c.key, c.kind) for c in changes] == [("files", path, "update")]


@pytest.mark.parametrize("size", [2, state.HASH_LIMIT + 1])
def test_a_file_name_cannot_forge_another_files_sum_or_times(task_device: SimTaskDevice, size: int) -> None:
    # sha1sum and stat print a name as it is: a file named with a line break and the victim's line
    # from before would give the victim its old value back, hiding an overwrite. A path printed
    # twice has no value (a change against any the capture before read).
    victim = "/storage/emulated/0/Documents/victim.txt"
    task_device.sh.host(victim).write_bytes(b"a" * size)
    before = capture(task_device, SPEC).table("files")[victim]  # type: ignore[arg-type]
    old = before["sha1"] or before["times"]
    task_device.sh.host("/data/local/tmp/b").write_bytes(b"b" * size)
    forged = f"{old}  {victim}" if before["sha1"] else f"{old} {victim}"
    # Folders make the slashes: find prints /storage/emulated/0/Music/z<LF>{old}  /storage/.../victim.txt
    for top in ("/sdcard/Music", "/sdcard/Alarms"):  # one walked before the victim, one after
        fake = f"{top}/z\n{forged}"
        line = f"mkdir -p '{fake.rsplit('/', 1)[0]}' && cp /data/local/tmp/b '{fake}'"
        assert task_device.sh.run(line).status == 0, task_device.sh.run(line).error
    assert task_device.sh.run(f"cat /data/local/tmp/b > {victim}").status == 0
    after = capture(task_device, SPEC).table("files")[victim]  # type: ignore[arg-type]
    assert after["size"] == size and (after["sha1"] or after["times"]) == state.AMBIGUOUS != old


def test_a_file_name_cannot_forge_an_entry_of_the_listing(task_device: SimTaskDevice) -> None:
    forged = "-rw-rw---- 1 root root 5 2026-01-01 00:00 report.txt"
    assert task_device.sh.run(f"touch '/sdcard/Documents/x\n{forged}'").status == 0
    files = capture(task_device, SPEC).tables["files"]  # type: ignore[arg-type]
    assert "/storage/emulated/0/Documents/report.txt" not in files
    assert files[f"/storage/emulated/0/Documents/x?{forged}"]["type"] == "file"  # the file, as ls -q shows it


@pytest.mark.parametrize("value", ["60000\nthe rest", "60000\nscreen_off_timeout=60000"])
def test_a_setting_holding_a_line_break_cannot_pass_for_another_value(
    task_device: SimTaskDevice, value: str
) -> None:
    before = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert task_device.sh.run(f"settings put system screen_off_timeout '{value}'").status == 0
    after = capture(task_device, SPEC).tables["settings.system"]  # type: ignore[arg-type]
    assert after == {UNREADABLE: {"value": "a value holds a line break"}}
    assert before.tables["settings.system"] != after


@pytest.mark.parametrize(
    ("replace", "kind"),
    [("rm {db} && mkdir {db}", "directory"), ("mv {db} {db}.real && ln -s {db}.real {db}", "symbolic link")],
)
def test_a_database_that_is_not_a_file_is_not_pulled(
    task_device: SimTaskDevice, replace: str, kind: str
) -> None:
    """A real pull of a folder fails the whole sync session: that error would end the trainer's run."""
    assert task_device.sh.run(replace.format(db=CONTACTS_DB)).status == 0
    after = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert CONTACTS_DB not in task_device.pulled
    assert after.tables[f"contacts.{UNREADABLE}"]["database"]["reason"] == f"{CONTACTS_DB} is a {kind}"


KEYS = st.text(alphabet=st.characters(exclude_characters="=\n\r", exclude_categories=["Cs"]), min_size=1)
VALUES = st.text(alphabet=st.characters(exclude_characters="\n\r", exclude_categories=["Cs"]))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=8))
def test_a_settings_listing_without_line_breaks_reads_back_exactly(values: dict[str, str]) -> None:
    lines = [f"{k}={v}" for k, v in sorted(values.items())]
    tables = state.settings_tables({"settings.global": lines})
    assert tables["settings.global"] == {k: {"value": v} for k, v in values.items()}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(), max_size=6))
def test_any_output_parses_without_raising(lines: list[str]) -> None:
    """What a hostile device prints where the capture expects `settings list` or `stat` output."""
    state.settings_tables({"settings.system": lines})
    for path, (size, kind) in state.parse_stats(lines).items():
        assert path.startswith("/") and size >= 0 and kind


EXPENSE_PREFS = SPEC.prefs["expense"].path


def test_an_apps_own_settings_are_in_the_diff(task_device: SimTaskDevice) -> None:
    """Pro Expense keeps its currency in its SharedPreferences: a policy that changes it while
    logging an expense changed the user's data, and the diff shows it."""
    before = capture(task_device, SPEC)  # type: ignore[arg-type]
    assert before.tables["prefs.expense"]["selected_currency_number"] == {"type": "string", "value": "840"}
    assert before.tables["prefs.expense"]["isFirstTime"] == {"type": "boolean", "value": "false"}
    assert task_device.sh.run(f"sed -i 's/>840</>978</' {EXPENSE_PREFS}").status == 0
    changes = diff(before, capture(task_device, SPEC))  # type: ignore[arg-type]
    assert [c.line() for c in changes] == [
        "update prefs.expense[selected_currency_number]: value '840' -> '978'"
    ]
    assert (
        task_device.sh.run(f"rm {EXPENSE_PREFS}").status == 0
    )  # not written yet: no preferences, as after `pm clear`
    assert capture(task_device, SPEC).tables["prefs.expense"] == {}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("not xml at all", "not XML"),
        ('<map><string name="a">1</string><string name="a">2</string></map>', "is not one preference"),
        ('<map><script name="a">1</script></map>', "is not one preference"),
        ("<list></list>", "not <map>"),
        ("<map>" + "<string name='x'>y</string>" * 3000 + "</map>", "over 65536 bytes"),
        (
            "<!DOCTYPE m [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
            "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'><!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>"
            "<!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'><!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>"
            "<!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'><!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>"
            "<!ENTITY i '&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;'>]><map><string name='s'>&i;</string></map>",
            "not XML",
        ),
    ],
    ids=["garbage", "name-twice", "unknown-element", "not-a-map", "oversized", "entity-bomb"],
)
def test_preferences_the_app_would_not_load_are_a_change(
    task_device: SimTaskDevice, body: str, reason: str
) -> None:
    """Never "no preferences" (which a policy could use to hide a change) and never a cost to the
    trainer's process (an entity bomb would expand to a gigabyte)."""
    before = capture(task_device, SPEC)  # type: ignore[arg-type]
    task_device.sh.host(EXPENSE_PREFS).write_text(body)
    after = capture(task_device, SPEC).tables["prefs.expense"]  # type: ignore[arg-type]
    assert list(after) == [UNREADABLE] and reason in after[UNREADABLE]["value"]
    assert any(
        c.where == "prefs.expense" for c in diff(before, StateSnapshot(tables={"prefs.expense": after}))
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=6))
def test_any_preferences_file_parses_without_raising(lines: list[str]) -> None:
    table = state.prefs_table(lines)
    assert all(set(row) == {"type", "value"} or key == UNREADABLE for key, row in table.items())


# ---- the checks of a judge tree read the same hostile databases, in the same process

EXPENSE_DB = SPEC.databases["expense"].path
ENDLESS = (
    "DROP TABLE expense; CREATE VIEW expense AS"
    " WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)"
    " SELECT x AS expense_id, 'Lunch' AS name, 100 AS amount, 3 AS category FROM n"
)


def not_paid(task_device: SimTaskDevice) -> JudgeResult:
    """The judge of a template that pays for *no* expense named Casino, a `not:` around a check."""
    catalog = load_catalog()
    template = catalog.get("expense.add_expense").model_copy(
        update={"judge": JudgeNode.model_validate({"not": {"expense.has_expense": {"name": "Casino"}}})}
    )
    return judge_instance(catalog, template.instantiate(0), task_device, None)  # type: ignore[arg-type]


def test_a_check_reading_an_endless_view_stops_and_fails_the_verdict(
    task_device: SimTaskDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table a check reads replaced by a view with no end: unbounded, the check's query held
    the trainer's process forever; read as "no rows", a `not:` around it paid."""
    assert not_paid(task_device).success  # no Casino expense: paid
    assert task_device.sh.run(f'sqlite3 {EXPENSE_DB} "{ENDLESS}"').status == 0
    monkeypatch.setattr(state, "READ_STEPS", 1_000_000)
    result = not_paid(task_device)
    assert not result.success
    assert [c.detail for c in result.checks if c.name == "judge.unreadable"] == [
        "OperationalError: interrupted"
    ]


def test_a_check_gets_at_most_its_rows_and_never_pulls_an_oversized_database(
    task_device: SimTaskDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = CheckContext(task_device, {}, {}, state=SPEC)  # type: ignore[arg-type]
    assert (
        task_device.sh.run(f'sqlite3 {EXPENSE_DB} "{ENDLESS.replace("FROM n", "FROM n LIMIT 5000")}"').status
        == 0
    )
    assert len(ctx.query("expense", "SELECT name FROM expense")) == 5000
    monkeypatch.setattr(state, "QUERY_ROWS", 4000)
    with pytest.raises(UnreadableData, match="over 4000 rows"):
        ctx.query("expense", "SELECT name FROM expense")
    ctx.close()
    monkeypatch.setattr(state, "MAX_DATABASE_BYTES", 1000)
    task_device.pulled.clear()
    with pytest.raises(UnreadableData, match="over 1000"):
        ctx.query("expense", "SELECT name FROM expense")
    assert task_device.pulled == []
    assert ctx.query("/data/data/no.such.app/databases/none.db", "SELECT 1") == []  # not made yet: no rows


class Growing(SimTaskDevice):
    """A device whose file grows between the judge's `stat` and its pull (its own process writing)."""

    def __init__(self, tmp_path: Path, path: str, to: int) -> None:
        super().__init__(tmp_path)
        self.path, self.to = path, to

    def pull_many(self, paths: list[str], limit: int | None = None) -> list[bytes | None]:
        with self.sh.host(self.path).open("ab") as grown:
            grown.write(b"\0" * self.to)
        return super().pull_many(paths, limit)


def test_a_file_that_grows_while_read_is_never_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state, "MAX_DATABASE_BYTES", 200_000)
    monkeypatch.setattr(judge, "MAX_FILE_BYTES", 200_000)
    monkeypatch.setattr(state, "_parsed", {})  # pulled, not taken from the tables kept for these bytes
    device = Growing(tmp_path, EXPENSE_DB + "-wal", 300_000)
    try:
        reason = capture(device, SPEC).tables[f"expense.{UNREADABLE}"]["database"]["reason"]  # type: ignore[arg-type]
        assert reason.endswith("-wal grew over 200000 bytes while being read")
        device.sh.host(device.path).write_bytes(b"")  # measured empty again, then grows
        with pytest.raises(UnreadableData, match="grew over 200000 bytes"):
            CheckContext(device, {}, {}, state=SPEC).query("expense", "SELECT 1")  # type: ignore[arg-type]
        device.path = "/sdcard/Download/notes.txt"
        device.sh.host(device.path).write_text("a note\n")
        with pytest.raises(UnreadableData, match="grew over 200000 bytes"):
            CheckContext(device, {}, {}, state=SPEC).read_file(device.path)  # type: ignore[arg-type]
    finally:
        device.sh.close()


def test_a_check_that_raises_on_odd_data_fails_the_verdict(task_device: SimTaskDevice) -> None:
    """A Casino expense whose amount is text (SQLite keeps what it is given): `has_expense` raised
    reading it, a raised check was a failed one, and the `not:` around it paid for the expense."""
    insert = "INSERT INTO expense (name, amount, category, note, created_date, modified_date) VALUES"
    added = task_device.sh.run(f"sqlite3 {EXPENSE_DB} \"{insert} ('Casino', 'lots', 1, '', 1, 1)\"")
    assert added.status == 0
    result = not_paid(task_device)
    assert not result.success
    [raised] = [c.detail for c in result.checks if c.name == "judge.check_raised"]
    assert raised.startswith("expense.has_expense raised ValueError")
