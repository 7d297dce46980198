"""The device sandbox, probed from inside as an agent would (issue 23): nothing a device user runs
reads, writes or removes a canary outside the device root, and no device stalls its neighbours."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.device import DeviceConfig, SimDevice
from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import run_command_line
from mgfarm.sim.system.fs import LINK_DIR
from tests.unit.shellkit import Result, ShellDevice

TOKEN = "CANARY-7f3a9c-SECRET"


@dataclass
class Canary:
    """A folder outside the device root with a file, a SQLite database and a subfolder."""

    folder: Path

    @property
    def file(self) -> Path:
        return self.folder / "secret.txt"

    @property
    def db(self) -> Path:
        return self.folder / "canary.db"

    def plant(self) -> None:
        self.folder.mkdir()
        self.file.write_text(TOKEN + "\n")
        (self.folder / "sub").mkdir()
        (self.folder / "sub" / "victim").write_text(TOKEN)
        con = sqlite3.connect(self.db)
        con.execute("CREATE TABLE t(v TEXT)")
        con.execute("INSERT INTO t VALUES (?)", (TOKEN,))
        con.commit()
        con.close()
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        out = {}
        for path in sorted(self.folder.rglob("*")):
            rel = str(path.relative_to(self.folder))
            out[rel] = (path.read_bytes() if path.is_file() else b"<dir>", path.stat().st_mtime_ns)
        return out

    def assert_untouched(self, *results: Result) -> None:
        assert self.snapshot() == self.before, "the canary outside the root was written or removed"
        for r in results:
            assert TOKEN not in r.out.decode(errors="replace") + r.err.decode(errors="replace"), "canary read"


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


@pytest.fixture
def canary(tmp_path: Path) -> Canary:
    c = Canary(tmp_path / "canary")
    c.plant()
    return c


def plant_host_link(sh: ShellDevice, device_path: str, host_target: Path) -> None:
    """A symlink to a host path placed in the root from outside: the worst state an old bug left."""
    link = sh.device.fs.host(device_path)  # /sdcard/x is shared storage's: /sdcard is a device link
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(host_target)


# ---- the probes of the issue, each an escape on the old code --------------------------------------


def test_redirect_keeps_its_file_while_folders_are_swapped(sh: ShellDevice, canary: Canary) -> None:
    # The old `>` re-opened its path on every flush: swapping the folder mid-command sent the
    # output through a link to any host path.
    sh.run("mkdir -p /sdcard/w/T /data/local/tmp/e2")
    plant_host_link(sh, "/data/local/tmp/e2/T", canary.folder)
    r = sh.run(
        "{ mv /sdcard/w /sdcard/w_old; mv /data/local/tmp/e2 /sdcard/w; echo X; } > /sdcard/w/T/secret.txt"
    )
    assert r.status == 0
    canary.assert_untouched(r)
    assert sh.run("cat /sdcard/w_old/T/secret.txt").text == "X\n"  # the file it opened first


def test_links_made_through_a_folder_link_never_resolve_on_the_host(sh: ShellDevice, canary: Canary) -> None:
    # The old `ln -s` stored a host-relative target computed through a folder link: placed in a
    # shallow folder (/data: / itself is the read-only system image), its `..` climbed out of the root.
    deep = "/data/local/tmp/a/b/c/d/e/f/g/h/i/j"
    r1 = sh.run(f"mkdir -p {deep} && ln -s /data {deep}/top && ln -s {canary.folder} {deep}/top/x")
    r2 = sh.run("cat /data/x/secret.txt; echo pwn > /data/x/new.txt; ls /data/x; rm -rf /data/x/sub")
    canary.assert_untouched(r1, r2)
    raw = os.readlink(sh.device.fs.root / "data/x")
    assert raw.startswith(LINK_DIR + "/")  # the kernel finds nothing when it follows it
    assert not os.path.exists(sh.device.fs.root / "data/x")
    assert sh.run("readlink /data/x").text == f"{canary.folder}\n"  # the device sees its own path


def test_find_delete_after_a_folder_swap_stays_inside(sh: ShellDevice, canary: Canary) -> None:
    # The old find collected matches, ran -exec, then deleted by path: a folder swapped in by
    # -exec made it delete a host file.
    # (in /data: shared storage would refuse the folder holding a link)
    sh.run("mkdir -p /data/local/tmp/d/sub /data/local/tmp/e2 && echo x > /data/local/tmp/d/sub/victim")
    plant_host_link(sh, "/data/local/tmp/e2/sub", canary.folder / "sub")
    r = sh.run(
        "find /data/local/tmp/d -name victim -exec sh -c "
        "'mv /data/local/tmp/d /data/local/tmp/d_old; mv /data/local/tmp/e2 /data/local/tmp/d' \\; -delete"
    )
    canary.assert_untouched(r)
    # As toybox: deleted through the folder descriptor the walk holds, so the file it matched goes.
    assert sh.run("ls /data/local/tmp/d_old/sub").text == ""


def test_sqlite_attach_vacuum_into_and_database_list_are_confined(sh: ShellDevice, canary: Canary) -> None:
    db = "/data/local/tmp/t.db"
    attach = sh.run(f"sqlite3 {db} \"ATTACH '{canary.db}' AS c; INSERT INTO c.t VALUES ('planted')\"")
    assert attach.status == 1 and "not allowed" in attach.error
    vacuum = sh.run(f"sqlite3 {db} \"CREATE TABLE x(a); VACUUM INTO '{canary.folder}/copy.db'\"")
    assert vacuum.status == 1 and "not allowed" in vacuum.error
    listing = sh.run(f"sqlite3 {db} 'PRAGMA database_list'; sqlite3 {db} .databases")
    assert listing.text == f"0|main|{db}\nmain: {db} r/w\n"
    root = str(sh.device.fs.root)
    assert root not in listing.text and root not in vacuum.error
    canary.assert_untouched(attach, vacuum, listing)


def test_pointer_functions_and_extensions_are_refused(sh: ShellDevice) -> None:
    db = "/data/local/tmp/t.db"
    forged = sh.run(f"sqlite3 {db} \"SELECT fts3_tokenizer('simple', x'4141414141414141')\"")
    assert forged.status == 1 and "fts3_tokenizer() is not allowed" in forged.error
    leak = sh.run(f"sqlite3 {db} \"SELECT hex(fts3_tokenizer('simple'))\"")  # reads a pointer
    assert leak.status == 1 and leak.text == ""
    assert sh.run(f"sqlite3 {db} \"SELECT load_extension('/system/lib64/libc.so')\"").status == 1
    for dot in (".shell id", ".system id", ".load /tmp/x.so"):
        r = sh.run(f"sqlite3 {db} '{dot}'")
        assert r.status == 1 and "not available on this device" in r.error
    assert sh.run("echo alive").text == "alive\n"  # the worker is still here


def test_sqlite_open_paths_resolve_beneath_the_root(sh: ShellDevice, canary: Canary) -> None:
    plant_host_link(sh, "/data/local/tmp/dbs", canary.folder)
    r1 = sh.run("sqlite3 /data/local/tmp/dbs/canary.db 'SELECT * FROM t'")
    r2 = sh.run(f"sqlite3 /data/local/tmp/t.db '.open {canary.db}' 'SELECT * FROM t'")
    r3 = sh.run(
        f"sqlite3 ../../../../../../../../..{canary.db} 'CREATE TABLE t(v); INSERT INTO t VALUES (1)'"
    )
    canary.assert_untouched(r1, r2, r3)


def test_content_provider_where_cannot_attach(sh: ShellDevice, canary: Canary) -> None:
    r = sh.run(
        "content query --uri content://settings/system "
        "--where \"name = (SELECT v FROM pragma_database_list) OR 1=fts3_tokenizer('simple')\""
    )
    assert r.status == 1
    canary.assert_untouched(r)


def test_sqlite3_flags_never_name_a_file(sh: ShellDevice) -> None:
    r = sh.run("cd /data/local/tmp && sqlite3 -version && sqlite3 --version && ls")
    assert r.text.startswith("3.32.2 2020-06-04 ") and r.text.count("3.32.2") == 2
    assert "-version" not in r.text  # ls lists no file named `-version`
    bad = sh.run("cd /data/local/tmp && sqlite3 -bogus x.db 'SELECT 1'; ls")
    assert bad.status == 0 and "unknown option: -bogus" in bad.error and "-bogus" not in bad.text


# ---- probes that held on the old code: kept ---------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "cat /../../../../../../etc/passwd",
        "cat /sdcard/../../../../../../../../etc/passwd",
        "cd /../../..; cat etc/passwd",
        "ls /../../../../../../../../",
        "cp /../../../../etc/passwd /sdcard/p; cat /sdcard/p",
        "sh /../../../../../etc/passwd",
        ". /../../../etc/passwd",
        "grep -r root /../../../../etc",
        "find /../../../../etc -name passwd -exec cat {} \\;",
        "sqlite3 /../../../../etc/passwd .tables",
        "content query --uri file:///etc/passwd",
        "echo $HOME $PATH $ANDROID_DATA",
        "exec cat /etc/passwd",
    ],
)
def test_plain_escapes_stay_refused(sh: ShellDevice, line: str) -> None:
    host_passwd = Path("/etc/passwd").read_text() if Path("/etc/passwd").exists() else "root:x:0:0"
    r = sh.run(line)
    first = host_passwd.splitlines()[0]
    assert first not in r.text and first not in r.error


def test_no_host_path_in_errors(sh: ShellDevice) -> None:
    root = str(sh.device.fs.root)
    r = sh.run("cat /sdcard/none; cd /nowhere; ls /none; sqlite3 /no/such/dir/x.db 'SELECT 1'; rm /sdcard")
    assert r.status != 0 and root not in r.error and "/tmp" not in r.error


# ---- budgets ----------------------------------------------------------------------------------------


def test_endless_word_growth_is_stopped(sh: ShellDevice) -> None:
    r = sh.run("x=a; while true; do x=$x$x; done; echo after")
    assert r.status == 1 and "word too long" in r.error


def test_line_splitting_commands_refuse_millions_of_lines(sh: ShellDevice) -> None:
    # 3 MB of newlines would be 3 million objects for sort; 64 MiB of them, 2 GB.
    # A generous timeout: the refusal comes after counting lines, which a loaded host makes slow.
    r = sh.run("sort", stdin=b"\n" * 3_000_000, timeout=60)
    assert r.status == 1 and "more than 2,000,000 lines" in r.error
    r = sh.run("grep -o .", stdin=b"y" * 1_500_000, timeout=60)
    # A million matches take ~1 s of the command's 2 s matching budget: on a loaded host the budget
    # may end it first. Either way grep refuses and keeps nothing.
    refusals = ("more than 1000000 output lines", "regular expression took too long")
    assert r.status == 2 and any(m in r.error for m in refusals) and not r.out, r.error


def test_endless_query_is_interrupted(sh: ShellDevice) -> None:
    r = sh.run(
        "sqlite3 /data/local/tmp/q.db 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
        "SELECT count(*) FROM c'",
        timeout=60,
    )
    assert (r.status, r.error) == (1, "Error: interrupted\n")


def test_sql_values_and_process_wide_pragmas_are_bounded(sh: ShellDevice) -> None:
    db = "/data/local/tmp/b.db"
    big = sh.run(f"sqlite3 {db} 'SELECT length(hex(zeroblob(500000000)))'")  # a 1 GB string
    assert (big.status, big.error) == (1, "Error: string or blob too big\n")
    heap = sh.run(f"sqlite3 {db} 'PRAGMA hard_heap_limit=1000'")  # would starve every device
    assert heap.status == 1 and "not allowed" in heap.error


def test_catastrophic_regex_is_stopped(sh: ShellDevice) -> None:
    r = sh.run("grep -E '(a|aa)+$'", stdin=b"a" * 64 + b"b\n", timeout=60)
    assert r.status == 2 and "took too long" in r.error
    assert sh.run("sed -E 's/(a|aa)+$/x/'", stdin=b"a" * 64 + b"b\n", timeout=60).status == 1


# ---- neighbours keep answering ---------------------------------------------------------------------


STUCK = [
    "sqlite3 /data/local/tmp/q.db "
    "'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c'",
    "content query --uri content://settings/system --where "
    '"name IN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c)"',
    "printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\\n' | grep -E '(a|aa)+$'",
    # toybox 0.8.6's find has no -regex (this case used to assert it did): a long walk that runs a
    # command for every entry stands in for it.
    "find " + "/ " * 400 + "-exec true {} \\; ; false",
]


@pytest.mark.parametrize("stuck", STUCK, ids=["sqlite3", "content-where", "grep", "find-exec"])
def test_a_stuck_command_leaves_other_devices_answering(tmp_path: Path, stuck: str) -> None:
    async def scenario() -> tuple[list[str], bool, int]:
        devices = []
        for name in ("a", "b"):
            cfg = DeviceConfig(
                name=name, adb_port=5555, data_dir=tmp_path / name, snapshot_dir=tmp_path / f"s{name}"
            )
            dev = SimDevice(cfg)
            await dev.boot()
            devices.append(dev)
        a, b = devices
        if "find" in stuck:
            a.fs.mkdir("/system/" + "a" * 40, parents=True)
        stuck_io = ShellIO.buffered()
        stuck_task = asyncio.create_task(run_command_line(a, stuck, stuck_io))
        await asyncio.sleep(0.05)  # the stuck command is under way
        answers = []
        for i in range(5):
            io = ShellIO.buffered()
            await run_command_line(b, f"echo {i}; getprop ro.product.model >/dev/null", io)
            answers.append(bytes(io.stdout.collected).decode())
        answered_first = not stuck_task.done()
        status = await asyncio.wait_for(stuck_task, 60)
        return answers, answered_first, status

    answers, answered_first, status = asyncio.run(scenario())
    assert answers == [f"{i}\n" for i in range(5)]
    assert answered_first, "the other device answered only after the stuck command had finished"
    assert status != 0  # the stuck command was ended by its budget


# ---- generated programs ------------------------------------------------------------------------------

NAMES = [
    "/sdcard/a",
    "/sdcard/a/b",
    "/sdcard/l",
    "/data/local/tmp/t",
    "/data/local/tmp/t/u",
    "/x",
    "a",
    "../..",
]


def _programs(canary: str) -> st.SearchStrategy[str]:
    name = st.sampled_from([*NAMES, canary, canary + "/secret.txt", canary + "/sub", canary + "/canary.db"])
    link_target = st.sampled_from(["/", "..", "../../../../..", canary, canary + "/sub", "/sdcard/a", "."])
    word = st.sampled_from(["X", "Y", "$(cat /sdcard/a/b)", TOKEN[:3]])
    commands = st.one_of(
        st.builds(lambda w, n: f"echo {w} > {n}", word, name),
        st.builds(lambda w, n: f"echo {w} >> {n}", word, name),
        st.builds(lambda n: f"cat {n}", name),
        st.builds(lambda n: f"cat < {n}", name),
        st.builds(lambda t, n: f"ln -s {t} {n}", link_target, name),
        st.builds(lambda t, n: f"ln -sf {t} {n}", link_target, name),
        st.builds(lambda a, b: f"mv {a} {b}", name, name),
        st.builds(lambda a, b: f"cp -r {a} {b}", name, name),
        st.builds(lambda n: f"rm -rf {n}", name),
        st.builds(lambda n: f"mkdir -p {n}", name),
        st.builds(lambda n: f"touch {n}", name),
        st.builds(lambda n: f"chmod 777 {n}", name),
        st.builds(lambda n: f"find {n} -name '*' -delete", name),
        st.builds(lambda n, m: f"find {n} -type f -exec cat {{}} \\; -o -exec mv {{}} {m} \\;", name, name),
        st.builds(lambda n: f"ls -lR {n}", name),
        st.builds(lambda n: f"tee {n} < /sdcard/a/b", name),
        st.builds(lambda n: f"sed -i s/X/Y/ {n}", name),
        st.builds(lambda n: f"grep -r C {n}", name),
        st.builds(lambda n: f"sqlite3 {n} 'CREATE TABLE IF NOT EXISTS t(v); SELECT * FROM t'", name),
        st.builds(lambda n: f"sqlite3 /sdcard/q.db \"ATTACH '{n}' AS z; SELECT * FROM z.t\"", name),
        st.builds(lambda n: f"sqlite3 /sdcard/q.db \"VACUUM INTO '{n}'\"", name),
        st.builds(lambda n: f"cd {n} && ls -la", name),
    )
    joiner = st.sampled_from(["; ", " && ", " | ", " || "])
    return st.lists(st.tuples(commands, joiner), min_size=1, max_size=6).map(
        lambda parts: "".join(c + j for c, j in parts[:-1]) + parts[-1][0]
    )


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_programs_never_touch_the_canary(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    base = tmp_path_factory.mktemp("gen")
    canary = Canary(base / "canary")
    canary.plant()
    sh = ShellDevice(base, boot=False)
    try:
        plant_host_link(sh, "/data/local/tmp/host", canary.folder)  # as if an old bug had left it
        plant_host_link(sh, "/sdcard/hostfile", canary.file)
        for _ in range(3):
            program = data.draw(_programs(str(canary.folder)))
            program = program.replace(
                "/x", data.draw(st.sampled_from(["/x", "/data/local/tmp/host", "/sdcard/hostfile"]))
            )
            r = sh.run(program, timeout=60)
            canary.assert_untouched(r)
    finally:
        sh.close()
