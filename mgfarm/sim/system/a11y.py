"""android_env's accessibility forwarder app, simulated: the a11y forest of the screen, sent over gRPC.

android_env's `A11yGrpcWrapper` (which AndroidWorld's controller always applies) installs Google's
`com.google.androidenv.accessibilityforwarder` APK, enables its AccessibilityForwarder service in
`settings secure enabled_accessibility_services`, broadcasts ENABLE_ACCESSIBILITY_TREE_LOGS and
then SET_GRPC (`--ei port P --es host 10.0.2.2`) to its FlagsBroadcastReceiver, and serves
`android_env.A11yService` on the host. The app then sends accessibility events (`SendEvent`) and,
with tree logs on, every window's accessibility tree (`SendForest`) to that server.

Here the app exists while a package of that name is installed (any APK declaring it: the sim runs
no APK code) and its service is enabled. On SET_GRPC the device starts one task in its event loop
that looks at the screen every POLL seconds. When it changed, it sends an event (`event_type`
TYPE_WINDOW_STATE_CHANGED when another activity came forward, else TYPE_WINDOW_CONTENT_CHANGED;
`event_package_name`, `source_class_name`) and the forest, built from the same laid-out views as
`uiautomator dump`; the forest goes again every HEARTBEAT seconds while nothing changes (a client
clears what it got at each reset, as the wrapper does, and so still gets the screen). 10.0.2.2, the
emulator's alias of the host's loopback, is 127.0.0.1 here (reached through `mgfarm.sim.hostnet`, so
a sandboxed worker stays fenced); the device reaches no other address, and none in airplane mode or
when its firewall (`iptables`) drops the port. A send that fails is logged in logcat (tag
AccessibilityForwarder) and retried at the next look.

grpcio and protobuf are imported only when a SET_GRPC broadcast arrives: without them the device
works and logs why it cannot forward.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mgfarm.sim import hostnet
from mgfarm.sim.system.firewall import firewall
from mgfarm.sim.system.logs import log as logcat
from mgfarm.sim.ui.systembars import SYSTEMUI
from mgfarm.sim.ui.views import EMPTY, EditText, View
from mgfarm.sim.ui.xmldump import class_name, resource_id

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice
    from mgfarm.sim.system.windows import Frame

PACKAGE = "com.google.androidenv.accessibilityforwarder"
SERVICE = f"{PACKAGE}/{PACKAGE}.AccessibilityForwarder"
RECEIVER = f"{PACKAGE}.FlagsBroadcastReceiver"
ACTION_SET_GRPC = "accessibility_forwarder.intent.action.SET_GRPC"
ACTION_TREE_LOGS = "accessibility_forwarder.intent.action.ENABLE_ACCESSIBILITY_TREE_LOGS"
SETTING = "enabled_accessibility_services"
HOST_ALIAS = "10.0.2.2"  # the emulator's name for the host's loopback
TAG = "AccessibilityForwarder"
POLL = 0.1  # seconds between looks at the screen
HEARTBEAT = 1.0  # seconds after which an unchanged forest is sent again
SEND_TIMEOUT = 5.0
MAX_EVENTS = 100  # kept while the server cannot be reached; older ones are dropped

# AccessibilityNodeInfo.AccessibilityAction ids.
ACTION_FOCUS, ACTION_CLICK, ACTION_LONG_CLICK, ACTION_A11Y_FOCUS = 1, 16, 32, 64
ACTION_SCROLL_FORWARD, ACTION_SCROLL_BACKWARD, ACTION_SET_TEXT = 4096, 8192, 2097152
# AccessibilityWindowInfo types, as android_env's WindowType enum numbers them.
TYPE_APPLICATION, TYPE_INPUT_METHOD, TYPE_SYSTEM = 1, 2, 3

LOG = logging.getLogger(__name__)


def enabled_services(value: str | None) -> set[str]:
    """The components a `enabled_accessibility_services` value lists, each as `pkg/full.Class`.

    The setting is a `:`-separated list of flattened ComponentNames; a class may be short (`.Cls`)
    and blanks around entries are ignored; an entry without `/` names no component and is skipped.
    """
    out: set[str] = set()
    for entry in (value or "").split(":"):
        package, slash, cls = entry.strip().partition("/")
        if not slash or not package or not cls:
            continue
        out.add(f"{package}/{package}{cls}" if cls.startswith(".") else f"{package}/{cls}")
    return out


def reaches_host(host: str) -> bool:
    """Whether `host` is the emulator's alias of the host's loopback: the one address a device reaches
    (its 127.0.0.1 is its own loopback, and there is no other network)."""
    return host.strip() == HOST_ALIAS


@dataclass
class Window:
    """One window for the forest: its root view, package, type, title and stacking layer."""

    root: View
    package: str
    kind: int
    title: str
    layer: int
    active: bool = False


def frame_windows(frame: Frame, app_title: str) -> list[Window]:
    """The windows of a frame, top-most first, as AccessibilityService.getWindows() lists them."""
    windows = [Window(frame.nav, SYSTEMUI, TYPE_SYSTEM, "Navigation bar", 4)]
    if frame.shade is not None:
        windows.append(Window(frame.shade, SYSTEMUI, TYPE_SYSTEM, "Notification shade", 3, active=True))
    windows.append(Window(frame.status, SYSTEMUI, TYPE_SYSTEM, "Status bar", 3))
    if frame.keyboard is not None:
        ime = frame.keyboard.id.partition(":id/")[0] or "com.android.inputmethod.latin"
        windows.append(Window(frame.keyboard, ime, TYPE_INPUT_METHOD, "Keyboard", 2))
    windows.append(Window(frame.app_root, frame.package, TYPE_APPLICATION, app_title, 1, frame.shade is None))
    return windows


def _actions(view: View) -> list[int]:
    ids = [ACTION_A11Y_FOCUS]
    if view.focusable:
        ids.append(ACTION_FOCUS)
    if view.clickable and view.enabled:
        ids.append(ACTION_CLICK)
    if view.long_clickable and view.enabled:
        ids.append(ACTION_LONG_CLICK)
    if view.scrollable:
        ids += [ACTION_SCROLL_FORWARD, ACTION_SCROLL_BACKWARD]
    if isinstance(view, EditText) and view.enabled:
        ids.append(ACTION_SET_TEXT)
    return ids


def build_forest(pb: Any, windows: list[Window], size: tuple[int, int]) -> Any:
    """An `AndroidAccessibilityForest` (from the bindings module `pb`) of the windows' visible views.

    Every node the user can see, as `uiautomator dump` lists them (bounds are the visible part),
    numbered in pre-order across the forest; a node's `child_ids` name its visible children.
    """
    forest = pb.AndroidAccessibilityForest()
    next_id = 1
    for window_id, window in enumerate(windows, start=1):
        info = forest.windows.add(
            display_id=0,
            id=window_id,
            layer=window.layer,
            title=window.title,
            window_type=window.kind,
            is_active=window.active,
            is_focused=window.active,
        )
        x0, y0, x1, y1 = window.root.clip if window.root.clip != EMPTY else (0, 0, *size)
        info.bounds_in_screen.CopyFrom(pb.ProtoRect(left=x0, top=y0, right=x1, bottom=y1))
        nodes = info.tree.nodes
        stack: list[tuple[View, int, int, Any]] = [(window.root, 0, 0, None)]
        while stack:
            view, depth, order, parent = stack.pop()
            node_id = next_id
            next_id += 1
            if parent is not None:
                parent.child_ids.append(node_id)
            x0, y0, x1, y1 = view.clip
            editable = isinstance(view, EditText)
            text = view.a11y_text
            node = nodes.add(
                unique_id=node_id,
                class_name=class_name(view),
                content_description=view.desc,
                hint_text=view.hint if isinstance(view, EditText) else "",
                package_name=window.package,
                text=text,
                text_selection_start=len(view.text) if editable else -1,
                text_selection_end=len(view.text) if editable else -1,
                view_id_resource_name=resource_id(view, window.package),
                window_id=window_id,
                is_checkable=view.checkable,
                is_checked=view.checked,
                is_clickable=view.clickable,
                is_editable=editable and view.enabled,
                is_enabled=view.enabled,
                is_focusable=view.focusable,
                is_focused=view.focused,
                is_long_clickable=view.long_clickable,
                is_password=view.password,
                is_scrollable=view.scrollable,
                is_selected=view.selected,
                is_visible_to_user=True,
                depth=depth,
                drawing_order=order,
            )
            node.bounds_in_screen.CopyFrom(pb.ProtoRect(left=x0, top=y0, right=x1, bottom=y1))
            for action in _actions(view):
                node.actions.add(id=action)
            visible = [(i, c) for i, c in enumerate(view.children) if c.clip != EMPTY]
            # Pushed last child first, so children are numbered (and listed) in order.
            stack.extend((c, depth + 1, i + 1, node) for i, c in reversed(visible))
    return forest


class Forwarder:
    """One device's forwarder app: its flags (set by broadcasts) and its sending task."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.tree_logs = False
        self.port: int | None = None  # the server's port on the host (at 10.0.2.2, the only host)
        self.task: asyncio.Task[None] | None = None

    def installed(self) -> bool:
        return self.device.services.packages.get(PACKAGE) is not None

    def enabled(self) -> bool:
        """Installed, with its accessibility service enabled: the service is bound and forwarding."""
        settings = self.device.services.settings
        return self.installed() and SERVICE in enabled_services(settings.get("secure", SETTING))

    def receive(self, action: str, extras: dict[str, Any]) -> None:
        """FlagsBroadcastReceiver: tree logs on, or the server to send to (which starts sending)."""
        if action == ACTION_TREE_LOGS:
            self.tree_logs = True
            return
        host, port = extras.get("host"), extras.get("port")
        if not isinstance(host, str) or not isinstance(port, int) or not 0 < port < 65536:
            logcat(self.device, "E", TAG, f"SET_GRPC needs --es host HOST --ei port PORT, got {extras}")
            return
        if not reaches_host(host):
            logcat(self.device, "E", TAG, f"cannot reach {host}:{port}: Network is unreachable")
            return
        self.port = port
        logcat(self.device, "I", TAG, f"gRPC server set to {host}:{port}")
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

    async def run(self) -> None:
        """Forward the screen (see the module's doc) until the device stops."""
        try:
            import grpc

            from mgfarm.sim.grpc import a11y_pb2 as pb
            from mgfarm.sim.grpc import a11y_pb2_grpc as pb_grpc
        except ImportError as exc:
            logcat(self.device, "E", TAG, f"cannot forward: {exc.name} is not installed (pip install grpcio)")
            return
        sender = Sender(self.device, grpc, pb, pb_grpc)
        try:
            while not self.device.killed.is_set():
                await asyncio.sleep(POLL)
                if self.port is not None and self.enabled():
                    await sender.step(self.port, self.tree_logs)
        except Exception:
            LOG.exception("%s: the accessibility forwarder stopped", self.device.config.name)
            raise
        finally:
            await sender.close()


class Sender:
    """The forwarder's sending side: the last forest it built, the events not yet sent, its link."""

    def __init__(self, device: SimDevice, grpc: Any, pb: Any, pb_grpc: Any) -> None:
        self.device = device
        self.grpc = grpc
        self.pb = pb
        self.pb_grpc = pb_grpc
        self.link: Link | None = None
        self.frame: object = None
        self.forest: Any = None
        self.window: tuple[str, str] | None = None  # the resumed activity the last forest showed
        self.events: list[dict[str, str]] = []
        self.sent_at = 0.0
        self.failing = False

    def fail(self, message: str) -> None:
        if not self.failing:  # once per streak of failures, as logcat would fill up otherwise
            logcat(self.device, "E", TAG, message)
        self.failing = True

    async def close(self) -> None:
        if self.link is not None:
            await self.link.close()
            self.link = None

    def observe(self) -> None:
        """A new forest when the frame changed, and the event the change makes: a window state change
        when another activity came forward, else a content change."""
        window = self.device.services.window
        frame = window.frame()
        if frame is self.frame:
            return
        self.frame = frame
        app = self.device.services.apps.get(frame.package)
        title = app.label if app is not None else frame.package
        forest = build_forest(self.pb, frame_windows(frame, title), window.size)
        resumed = self.device.services.activities.resumed()
        changed = forest != self.forest  # compares the whole tree: once
        if self.forest is not None and (resumed != self.window or changed):
            kind = "TYPE_WINDOW_STATE_CHANGED" if resumed != self.window else "TYPE_WINDOW_CONTENT_CHANGED"
            event = {
                "event_type": kind,
                "event_package_name": frame.package,
                "source_class_name": class_name(frame.app_root),
            }
            self.events = [*self.events[-(MAX_EVENTS - 1) :], event]
        if changed:
            self.forest, self.sent_at = forest, 0.0
        self.window = resumed

    async def step(self, port: int, tree_logs: bool) -> None:
        """One look at the screen; send its events, and its forest when tree logs are on."""
        blocked = network_block(self.device, port)
        if blocked:  # no network (or a firewall rule): the connection is gone
            await self.close()
            self.fail(f"cannot reach {HOST_ALIAS}:{port}: {BLOCKED[blocked]}")
            return
        if self.link is None or self.link.port != port:
            await self.close()
            self.link = await Link.open(self.device, port, self.grpc, self.pb_grpc)
            self.sent_at = 0.0
        self.observe()
        try:
            while self.events:
                request = self.pb.EventRequest(event=self.events[0])
                await self.link.stub.SendEvent(request, timeout=SEND_TIMEOUT)
                self.events.pop(0)
            if tree_logs and self.forest is not None and time.monotonic() - self.sent_at >= HEARTBEAT:
                self.sent_at = time.monotonic()
                await self.link.stub.SendForest(self.forest, timeout=SEND_TIMEOUT)
            self.failing = False
        except self.grpc.aio.AioRpcError as exc:
            self.fail(f"sending to {HOST_ALIAS}:{port}: {exc.code().name}")


BLOCKED = {
    "airplane": "Network is unreachable",
    "DROP": "Connection timed out",
    "REJECT": "Connection refused",
}


def network_block(device: SimDevice, port: int) -> str:
    """What stops the device from reaching 10.0.2.2:`port`: "airplane" (no network at all), the
    firewall's DROP or REJECT (`iptables`), or "" when nothing does."""
    if device.services.settings.get("global", "airplane_mode_on") == "1":
        return "airplane"
    verdict = firewall(device).verdict("tcp", HOST_ALIAS, port)
    return "" if verdict == "ACCEPT" else verdict


class Link:
    """The forwarder's gRPC channel to the host's port, through a relay on an abstract unix socket.

    gRPC makes its own connections, and a sandboxed worker may not connect to a host port itself:
    the channel connects to the relay, which gets each TCP connection from `hostnet.connect` and
    copies bytes both ways. The relay's abstract socket lives in the worker's own sandbox domain.
    """

    def __init__(self, port: int, relay: asyncio.AbstractServer, channel: Any, stub: Any) -> None:
        self.port = port
        self.relay = relay
        self.channel = channel
        self.stub = stub

    @classmethod
    async def open(cls, device: SimDevice, port: int, grpc: Any, pb_grpc: Any) -> Link:
        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                blocked = network_block(device, port)
                if blocked == "DROP":  # nothing answers: the connection times out
                    await asyncio.sleep(hostnet.CONNECT_TIMEOUT)
                if blocked:
                    raise OSError(BLOCKED[blocked])
                sock = await hostnet.connect(port)
            except OSError as exc:
                logcat(device, "E", TAG, f"cannot connect to {HOST_ALIAS}:{port}: {exc}")
                writer.close()
                return
            host_reader, host_writer = await asyncio.open_connection(sock=sock)
            if not await http2_handshake(reader, writer, host_reader, host_writer):
                logcat(device, "E", TAG, f"{HOST_ALIAS}:{port} is not a gRPC server")
                host_writer.close()
                writer.close()
                return
            await asyncio.gather(_copy(reader, host_writer), _copy(host_reader, writer))

        name = f"mgfarm-a11y-{os.getpid()}-{device.config.serial}-{port}-{next(_LINKS)}"
        server = await asyncio.start_unix_server(relay, path="\0" + name)
        credentials = grpc.local_channel_credentials(grpc.LocalConnectionType.UDS)
        channel = grpc.aio.secure_channel(f"unix-abstract:{name}", credentials)
        return cls(port, server, channel, pb_grpc.A11yServiceStub(channel))

    async def close(self) -> None:
        await self.channel.close()
        self.relay.close()


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_SETTINGS = 0x4
HANDSHAKE_TIMEOUT = 5.0


async def http2_handshake(
    client_r: asyncio.StreamReader,
    client_w: asyncio.StreamWriter,
    host_r: asyncio.StreamReader,
    host_w: asyncio.StreamWriter,
) -> bool:
    """Pass the client's fixed HTTP/2 preface, then the server's SETTINGS frame back; False (and nothing
    else sent) when the host port does not answer as an HTTP/2 server.

    A hostile device may name any loopback port in SET_GRPC; the forest it would send carries text the
    agent typed. Only these 24 constant bytes reach a port before it has proven to speak HTTP/2, so a
    Redis, an adb server or another farm's device never reads an agent's words.
    """
    try:
        preface = await asyncio.wait_for(client_r.readexactly(len(H2_PREFACE)), HANDSHAKE_TIMEOUT)
        if preface != H2_PREFACE:
            return False
        host_w.write(preface)
        await host_w.drain()
        header = await asyncio.wait_for(host_r.readexactly(9), HANDSHAKE_TIMEOUT)
        length, kind = int.from_bytes(header[:3], "big"), header[3]
        stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
        if kind != H2_SETTINGS or stream != 0 or length % 6 or length > 6 * 16:
            return False
        payload = await asyncio.wait_for(host_r.readexactly(length), HANDSHAKE_TIMEOUT)
        client_w.write(header + payload)
        await client_w.drain()
    except (asyncio.IncompleteReadError, asyncio.TimeoutError, OSError):
        return False
    return True


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Bytes from reader to writer until either side ends; then the writer is closed."""
    try:
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass  # a side went away: closing the other is all that is left to do
    finally:
        writer.close()


_LINKS = itertools.count()


_FORWARDERS: weakref.WeakKeyDictionary[SimDevice, Forwarder] = weakref.WeakKeyDictionary()


def forwarder(device: SimDevice) -> Forwarder:
    """The device's forwarder app state (made at its first broadcast)."""
    found = _FORWARDERS.get(device)
    if found is None:
        found = _FORWARDERS[device] = Forwarder(device)
    return found


def broadcast(device: SimDevice, action: str, package: str | None, extras: dict[str, Any]) -> bool:
    """Deliver `am broadcast` to the forwarder's receiver when it is installed and the intent is for it.

    True when delivered. An explicit intent (`-n`/`-p`) must name the forwarder's package.
    """
    if action not in (ACTION_SET_GRPC, ACTION_TREE_LOGS) or package not in (None, PACKAGE):
        return False
    app = forwarder(device)
    if not app.installed():
        return False
    app.receive(action, extras)
    return True
