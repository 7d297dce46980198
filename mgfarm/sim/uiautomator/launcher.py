"""`app_process` in the sim: recognises uiautomator2's server launch and keeps the server alive."""

from __future__ import annotations

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.uiautomator.server import UiAutomatorServer

U2_MAIN = "com.wetest.uia2.Main"
DEFAULT_PORT = 9008


def _port(argv: list[str]) -> int:
    if "-p" in argv:
        return int(argv[argv.index("-p") + 1])
    return DEFAULT_PORT


@command("app_process", "app_process64")
async def app_process(inv: Invocation) -> int:
    """Runs the u2 server for as long as the calling shell stream stays open."""
    argv = inv.argv
    if U2_MAIN not in argv:
        inv.err(f"Error: app_process cannot run {' '.join(argv[1:])!r} on this device\n")
        return 1
    jars = [p for p in inv.env.get("CLASSPATH", "").split(":") if p]
    if not jars or not all(inv.device.fs.host(jar, inv.cwd).is_file() for jar in jars):
        inv.err(f"Error: Could not find or load main class {U2_MAIN}\n")
        return 1
    try:
        port = _port(argv)
    except (ValueError, IndexError):
        inv.err("Error: -p needs a port number\n")
        return 1
    if port in inv.device.local_servers:
        inv.err(f"java.net.BindException: Address already in use (port {port})\n")
        return 1
    server = UiAutomatorServer(inv.device)
    inv.device.local_servers[port] = server.serve
    inv.out("[server] INFO: [UiAutomator2Server] Starting Server\n")
    await inv.io.stdout.flush()
    try:
        # The host closing the stream ends stdin (or cancels this task): either way the server stops.
        while await inv.io.stdin.read(65536):
            pass
    finally:
        if inv.device.local_servers.get(port) == server.serve:
            del inv.device.local_servers[port]
    return 0
