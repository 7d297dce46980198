"""The real adb binary and adbutils run shell commands on a simulated device."""

from __future__ import annotations

from tests.integration.conftest import AdbServer, SimHandle


def test_devices_lists_the_device_with_its_product(adb_server: AdbServer, sim_device: SimHandle) -> None:
    out = adb_server.adb("devices", "-l").stdout
    line = next(ln for ln in out.splitlines() if ln.startswith(sim_device.serial))
    assert " device " in line
    assert "product:sdk_gphone64_x86_64" in line and "model:sdk_gphone64_x86_64" in line


def test_shell_returns_stdout_stderr_and_exit_code(adb_server: AdbServer, sim_device: SimHandle) -> None:
    proc = adb_server.adb("-s", sim_device.serial, "shell", "echo out; echo err >&2; exit 3")
    assert proc.stdout == "out\n"
    assert proc.stderr == "err\n"
    assert proc.returncode == 3


def test_exec_out_is_raw(adb_server: AdbServer, sim_device: SimHandle) -> None:
    proc = adb_server.adb_bytes("-s", sim_device.serial, "exec-out", "printf 'a\\nb'")
    assert proc.stdout == b"a\nb"


def test_adbutils_shell_and_shell2(adb_server: AdbServer, sim_device: SimHandle) -> None:
    device = adb_server.client().device(sim_device.serial)
    assert device.shell("echo hello") == "hello"
    result = device.shell2("echo x; false")
    assert result.output == "x\n" and result.returncode == 1
    v2 = device.shell2("echo y; echo z >&2; exit 7", v2=True)
    assert v2.returncode == 7 and "y" in v2.output
    assert device.getprop("ro.product.model") == "sdk_gphone64_x86_64"


def test_many_concurrent_streams_on_one_transport(adb_server: AdbServer, sim_device: SimHandle) -> None:
    from concurrent.futures import ThreadPoolExecutor

    device = adb_server.client().device(sim_device.serial)
    with ThreadPoolExecutor(8) as pool:
        outputs = list(pool.map(lambda i: device.shell(f"echo {i}"), range(40)))
    assert outputs == [str(i) for i in range(40)]


def test_stdin_reaches_the_command(adb_server: AdbServer, sim_device: SimHandle) -> None:
    piped = adb_server.adb("-s", sim_device.serial, "shell", "cat", input=b"through stdin\n")
    assert piped.stdout == "through stdin\n" and piped.returncode == 0
    interactive = adb_server.adb("-s", sim_device.serial, "shell", input=b"echo one\necho two\nexit\n")
    assert interactive.stdout.split() == ["one", "two"]


def test_interactive_shell_keeps_cwd_variables_and_status(
    adb_server: AdbServer, sim_device: SimHandle
) -> None:
    lines = b"cd /data/local/tmp\npwd\nX=5\necho x=$X\nfalse\necho $?\nexit 3\necho never\n"
    proc = adb_server.adb("-s", sim_device.serial, "shell", input=lines)
    assert proc.stdout.split() == ["/data/local/tmp", "x=5", "1"]
    assert proc.returncode == 3


def test_legacy_shell_service_keeps_cwd(adb_server: AdbServer, sim_device: SimHandle) -> None:
    """The raw `shell:` service (no v2, as older clients open it) runs one session too."""
    conn = adb_server.client().device(sim_device.serial).open_transport()
    try:
        conn.send_command("shell:")
        conn.check_okay()
        conn.conn.sendall(b"cd /data/local/tmp\rpwd\rexit\r")
        transcript = b""
        while chunk := conn.conn.recv(4096):
            transcript += chunk
    finally:
        conn.close()
    assert b"pwd\r\n/data/local/tmp\r\nemu64x:/data/local/tmp # exit\r\n" in transcript


def test_exec_in_writes_a_file_after_the_client_closes(adb_server: AdbServer, sim_device: SimHandle) -> None:
    import os
    import subprocess
    import time

    data = os.urandom(200_000)
    proc = subprocess.run(
        [
            str(adb_server.binary),
            "-P",
            str(adb_server.port),
            "-s",
            sim_device.serial,
            "exec-in",
            "cat > /sdcard/in.bin",
        ],
        input=data,
        capture_output=True,
        env=adb_server.env(),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the device finishes writing after the client has gone
        back = adb_server.adb_bytes("-s", sim_device.serial, "exec-out", "cat /sdcard/in.bin").stdout
        if back == data:
            return
        time.sleep(0.1)
    raise AssertionError("exec-in data never landed intact")


def test_interactive_shell_on_a_terminal(adb_server: AdbServer, sim_device: SimHandle) -> None:
    """`adb shell` on a tty: prompt, echo, CR line ends and CRLF output, `exit` ends with status 0."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child becomes the adb client on a pseudo-terminal
        os.environ["HOME"] = str(adb_server.home)
        os.execv(
            str(adb_server.binary), ["adb", "-P", str(adb_server.port), "-s", sim_device.serial, "shell"]
        )
    transcript = b""

    def read_until(marker: bytes) -> None:
        nonlocal transcript
        deadline = time.monotonic() + 10
        while marker not in transcript and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    transcript += os.read(fd, 4096)
                except OSError:
                    return

    read_until(b"# ")
    os.write(fd, b"echo hi there\r")
    read_until(b"hi there\r\nemu64x:/ # ")
    os.write(fd, b"cd /data\r")
    read_until(b"emu64x:/data # ")
    os.write(fd, b"pwd\r")
    read_until(b"/data\r\nemu64x:/data # ")
    os.write(fd, b"exit\r")
    read_until(b"exit\r\n")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert transcript == (
        b"emu64x:/ # echo hi there\r\nhi there\r\nemu64x:/ # cd /data\r\n"
        b"emu64x:/data # pwd\r\n/data\r\nemu64x:/data # exit\r\n"
    )
    assert os.waitstatus_to_exitcode(status) == 0
