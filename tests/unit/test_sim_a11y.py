"""The simulated accessibility forwarder: the settings parser, the forest of a screen, and forests sent to
android_env's own A11yServicer (as A11yGrpcWrapper serves it) from a device driven in-process."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.sim.system import a11y
from tests.apkkit import apk_bytes
from tests.unit.shellkit import ShellDevice

NAME = st.from_regex(r"[a-z][a-z0-9_]{0,6}(\.[a-z][a-z0-9_]{0,6}){1,3}", fullmatch=True)
CLASS = st.from_regex(r"[A-Z][A-Za-z0-9]{0,8}", fullmatch=True)


@given(st.lists(st.tuples(NAME, CLASS, st.booleans()), max_size=5), st.sampled_from(["", " "]))
def test_enabled_services_lists_every_component_in_full(
    entries: list[tuple[str, str, bool]], blank: str
) -> None:
    value = ":".join(f"{blank}{pkg}/{'.' if short else pkg + '.'}{cls}{blank}" for pkg, cls, short in entries)
    assert a11y.enabled_services(value) == {f"{pkg}/{pkg}.{cls}" for pkg, cls, _ in entries}


@given(st.text(max_size=80))
def test_enabled_services_never_fails_on_any_value(value: str) -> None:
    for component in a11y.enabled_services(value):
        package, _, cls = component.partition("/")
        assert package and cls and not cls.startswith(".")


def test_only_the_emulator_host_alias_reaches_the_host() -> None:
    assert a11y.reaches_host("10.0.2.2")
    assert not a11y.reaches_host("127.0.0.1")  # the device's own loopback, not the host's
    assert not a11y.reaches_host("8.8.8.8")


def forest_of(sh: ShellDevice) -> Any:
    pb = pytest.importorskip("mgfarm.sim.grpc.a11y_pb2", reason="protobuf is not installed")
    window = sh.device.services.window
    frame = window.frame()
    return a11y.build_forest(pb, a11y.frame_windows(frame, "Home"), window.size)


def test_forest_matches_uiautomator_dump_and_parses_as_android_envs(sh: ShellDevice) -> None:
    theirs = pytest.importorskip(
        "android_env.proto.a11y.android_accessibility_forest_pb2", reason="android-env is not installed"
    )
    forest = theirs.AndroidAccessibilityForest.FromString(forest_of(sh).SerializeToString())
    types = [w.window_type for w in forest.windows]
    assert types == [3, 3, 1]  # navigation bar, status bar, then the launcher (top-most first)
    app = forest.windows[-1]
    assert app.is_active and app.tree.nodes[0].package_name == "com.android.launcher3"
    nodes = [n for w in forest.windows for n in w.tree.nodes]
    ids = {n.unique_id for n in nodes}
    assert len(ids) == len(nodes) and all(set(n.child_ids) <= ids for n in nodes)
    # The same nodes as `uiautomator dump` of every window: texts, descriptions, bounds.
    xml = sh.device.services.window.dump_xml(all_windows=True)
    dumped = re.findall(r'text="([^"]*)"[^>]*content-desc="([^"]*)"[^>]*bounds="([^"]*)"', xml)
    ours = [
        (n.text, n.content_description, f"[{b.left},{b.top}][{b.right},{b.bottom}]")
        for n in nodes
        for b in [n.bounds_in_screen]
    ]
    assert sorted(ours) == sorted((t.replace("&amp;", "&"), d, bounds) for t, d, bounds in dumped)
    phone = next(n for n in nodes if n.text == "Phone")
    assert phone.is_clickable and phone.is_visible_to_user and 16 in [a.id for a in phone.actions]


FIELD = re.compile(r'class="android.widget.EditText"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"')


def test_forest_of_a_focused_field_has_the_keyboard_window(sh: ShellDevice) -> None:
    sh.run("am start -n com.android.settings/.Settings")
    found = FIELD.search(sh.device.services.window.dump_xml())
    assert found is not None, "Settings' first screen shows its search field"
    x0, y0, x1, y1 = map(int, found.groups())
    sh.run(f"input tap {(x0 + x1) // 2} {(y0 + y1) // 2}")
    forest = forest_of(sh)
    assert [w.window_type for w in forest.windows] == [3, 3, 2, 1]  # the keyboard above the app
    field = next(n for w in forest.windows for n in w.tree.nodes if n.class_name == "android.widget.EditText")
    assert field.is_editable and field.is_focused and field.hint_text


@pytest.fixture
def servicer(sh: ShellDevice) -> Iterator[Any]:
    """android_env's A11yServicer served as A11yGrpcWrapper serves it (local credentials), resumed;
    `.port` is its port. The device is stopped at the end, so its forwarder closes what it opened."""
    grpc = pytest.importorskip("grpc", reason="grpcio is not installed")
    servicer_mod = pytest.importorskip("android_env.wrappers.a11y.a11y_servicer", reason="no android-env")
    a11y_grpc = pytest.importorskip("android_env.proto.a11y.a11y_pb2_grpc")
    found = servicer_mod.A11yServicer(latest_forest_only=True)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    a11y_grpc.add_A11yServiceServicer_to_server(found, server)
    found.port = server.add_secure_port("127.0.0.1:0", grpc.local_server_credentials())
    server.start()
    found.resume()
    try:
        yield found
    finally:
        sh.device.killed.set()
        task = a11y.forwarder(sh.device).task
        while task is not None and not task.done():
            run_for(sh, 0.1)
        run_for(sh, 0.2)
        server.stop(None)


RECEIVER = f"{a11y.PACKAGE}/{a11y.RECEIVER}"


def set_grpc(port: int) -> str:
    """The broadcast as A11yGrpcWrapper._configure_grpc sends it (its action string carries the extras)."""
    return f'am broadcast -a {a11y.ACTION_SET_GRPC} --ei "port" {port} --es "host" 10.0.2.2 -n {RECEIVER}'


def install_and_enable(sh: ShellDevice, tree_logs: bool = True) -> None:
    sh.host("/data/local/tmp").mkdir(parents=True, exist_ok=True)
    sh.host("/data/local/tmp/fwd.apk").write_bytes(apk_bytes(a11y.PACKAGE, filler=16))
    assert sh.run("pm install -r -t -g /data/local/tmp/fwd.apk").text == "Success\n"
    assert sh.run(f"settings put secure enabled_accessibility_services {a11y.SERVICE}").status == 0
    if tree_logs:
        assert sh.run(f"am broadcast -a {a11y.ACTION_TREE_LOGS} -n {RECEIVER}").status == 0


def test_forests_reach_android_envs_servicer_after_install_enable_and_broadcasts(
    sh: ShellDevice, servicer: Any
) -> None:
    # Not installed: the broadcast reaches no receiver.
    assert sh.run(set_grpc(servicer.port)).status == 0
    assert a11y.forwarder(sh.device).port is None
    install_and_enable(sh)
    assert sh.run(set_grpc(servicer.port)).status == 0
    forests = wait_for_forests(sh, servicer)
    texts = {n.text for w in forests[-1].windows for n in w.tree.nodes}
    assert {"Phone", "Contacts"} <= texts
    # A change on screen is sent without being asked for.
    sh.run("am start -n com.android.settings/.Settings")
    wait_for_forests(sh, servicer, "com.android.settings")
    # Service disabled: nothing more is sent.
    sh.run("settings put secure enabled_accessibility_services ''")
    assert not sent_within(sh, servicer, 1.5)


def test_without_tree_logs_only_events_are_sent(sh: ShellDevice, servicer: Any) -> None:
    install_and_enable(sh, tree_logs=False)
    sh.run(set_grpc(servicer.port))
    run_for(sh, 0.5)
    sh.run("am start -n com.android.settings/.Settings")
    deadline = time.monotonic() + 20
    events: list[dict[str, str]] = []
    while not events and time.monotonic() < deadline:
        run_for(sh, 0.2)
        events = [dict(e.event) for e in servicer.gather_events()]
    assert events[0]["event_type"] == "TYPE_WINDOW_STATE_CHANGED"
    assert events[0]["event_package_name"] == "com.android.settings"
    assert servicer.gather_forests() == []


def test_no_forest_passes_in_airplane_mode_or_a_firewall_rejecting_the_port(
    sh: ShellDevice, servicer: Any
) -> None:
    install_and_enable(sh)
    sh.run(set_grpc(servicer.port))
    wait_for_forests(sh, servicer)
    sh.run("settings put global airplane_mode_on 1")
    assert not sent_within(sh, servicer, 1.5)
    assert "Network is unreachable" in sh.run("logcat -d -s AccessibilityForwarder").text
    sh.run("settings put global airplane_mode_on 0")
    wait_for_forests(sh, servicer)
    # As A11yGrpcWrapper(disable_other_network_traffic=True) sets it up: its port, then nothing else.
    sh.run(f"su 0 iptables -A OUTPUT -p tcp -d 10.0.2.2 --dport {servicer.port} -j ACCEPT")
    sh.run("su 0 iptables -A OUTPUT -j DROP")
    sh.run("am start -n com.android.settings/.Settings")
    wait_for_forests(sh, servicer, "com.android.settings")
    sh.run(f"su 0 iptables -I OUTPUT -p tcp --dport {servicer.port} -j REJECT")
    assert not sent_within(sh, servicer, 1.5)
    assert "Connection refused" in sh.run("logcat -d -s AccessibilityForwarder").text


def run_for(sh: ShellDevice, seconds: float) -> None:
    sh.loop.run_until_complete(asyncio.sleep(seconds))


def sent_within(sh: ShellDevice, servicer: Any, seconds: float) -> bool:
    """Whether a forest arrives while the device's loop runs `seconds` (after what was on its way)."""
    run_for(sh, 0.3)
    servicer.gather_forests()
    run_for(sh, seconds)
    return bool(servicer.gather_forests())


def wait_for_forests(sh: ShellDevice, servicer: Any, package: str = "") -> list[Any]:
    """Run the device's loop until the servicer got a forest (whose app window shows `package`, when
    given), failing after 20 s."""
    deadline = time.monotonic() + 20
    got: list[Any] = []
    while time.monotonic() < deadline:
        run_for(sh, 0.2)
        got += servicer.gather_forests()
        if got and (not package or got[-1].windows[-1].tree.nodes[0].package_name == package):
            return got
    raise AssertionError(f"no forest arrived: {sh.run('logcat -d -s AccessibilityForwarder').text}")


def test_the_host_connector_thread_reaches_loopback_ports_and_reports_refusals() -> None:
    from mgfarm.sim import hostnet

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    async def both() -> tuple[object, BaseException | None]:
        connector = hostnet.Connector()
        with await connector.connect(port) as sock:
            peer = sock.getpeername()
        listener.close()
        try:
            await connector.connect(port)  # nobody listens there any more
        except OSError as exc:
            return peer, exc
        return peer, None

    peer, refused = asyncio.run(both())
    assert peer == ("127.0.0.1", port)
    assert isinstance(refused, ConnectionRefusedError)
    with pytest.raises(OSError, match="out of range"):
        asyncio.run(hostnet.connect(70000))


async def _through_handshake(answer: bytes, sent_by_grpc: bytes) -> tuple[bool, bytes, bytes]:
    """The relay's handshake between a client sending `sent_by_grpc` and a host port answering `answer`:
    (passed, what the host port read, what the client read)."""
    received = bytearray()

    async def host_port(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(answer)
        await writer.drain()
        received.extend(await reader.read(1 << 16))
        writer.close()

    server = await asyncio.start_server(host_port, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    host_r, host_w = await asyncio.open_connection("127.0.0.1", port)
    client_in = asyncio.StreamReader()
    client_in.feed_data(sent_by_grpc)
    client_out, peer = socket.socketpair()
    _, client_w = await asyncio.open_connection(sock=client_out)
    ok = await a11y.http2_handshake(client_in, client_w, host_r, host_w)
    host_w.close()
    await asyncio.sleep(0.05)
    server.close()
    peer.setblocking(False)
    try:
        back = peer.recv(1 << 16)
    except BlockingIOError:
        back = b""
    peer.close()
    client_w.close()
    return ok, bytes(received), back


def test_a_port_that_is_not_an_http2_server_never_reads_the_agents_text() -> None:
    secret = b"\x00\x00\x10\x01\x04\x00\x00\x00\x01FLUSHALL typed by the agent"
    ok, received, _ = asyncio.run(_through_handshake(b"+OK\r\n", a11y.H2_PREFACE + secret))
    assert not ok and received == a11y.H2_PREFACE  # only the constant preface went out
    settings = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64"  # SETTINGS, 1 entry
    ok, received, back = asyncio.run(_through_handshake(settings, a11y.H2_PREFACE + secret))
    assert ok and received.startswith(a11y.H2_PREFACE) and back == settings
    ok, _, _ = asyncio.run(_through_handshake(settings, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert not ok  # a client that is not gRPC's does not get through either
