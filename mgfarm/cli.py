"""The `mgfarm` command line: parse, call, print. Logic lives in the packages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

from mgfarm.errors import MgfarmError

app = typer.Typer(
    help="mgfarm: a farm of verifiable, resettable Android devices for mobile GUI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
tasks_app = typer.Typer(help="List, show and check the verifiable task templates.", no_args_is_help=True)
snapshot_app = typer.Typer(help="Build and list golden snapshots.", no_args_is_help=True)
sim_app = typer.Typer(help="Run simulated Android devices.", no_args_is_help=True)
images_app = typer.Typer(help="Build the Docker images (base, sim, emulator).", no_args_is_help=True)
k8s_app = typer.Typer(help="Render Kubernetes manifests for a farm.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
app.add_typer(snapshot_app, name="snapshot")
app.add_typer(sim_app, name="sim")
app.add_typer(images_app, name="images")
app.add_typer(k8s_app, name="k8s")

out = Console()
err = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one clear sentence on stderr and exit non-zero."""
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def not_available(command: str) -> NoReturn:
    fail(f"`mgfarm {command}` is not available yet in this version.", code=2)


# --------------------------------------------------------------------------- doctor


@app.command()
def doctor(json_out: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Check adb, Docker, KVM and the default ports, and say how to fix what is missing.

    Example: mgfarm doctor --json
    """
    from mgfarm.doctor import render_table, run_checks

    checks = run_checks()
    if json_out:
        print(json.dumps([c.as_dict() for c in checks], indent=2))
    else:
        out.print(render_table(checks))


# --------------------------------------------------------------------------- sim serve (H1)


@sim_app.command("serve")
def sim_serve(
    adb_port: int = typer.Option(5555, "--adb-port", help="adb port of device 1; console is one below."),
    count: int = typer.Option(1, "--count", "-n", help="Devices to host; each takes the next port pair."),
    data: Path | None = typer.Option(None, "--data", help="Folder for device files (default: a temp dir)."),
    snapshots: Path | None = typer.Option(None, "--snapshots", help="Snapshot folder shared by the devices."),
    token_file: Path | None = typer.Option(
        None, "--token-file", help="Console auth token (default ~/.emulator_console_auth_token)."
    ),
    announce: int | None = typer.Option(None, "--announce", help="adb server port to announce devices to."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
) -> None:
    """Serve simulated devices over ADB and the emulator console until SIGTERM or Ctrl-C.

    Example: mgfarm sim serve --adb-port 5555 --count 4 --announce 5037
    """
    from mgfarm.sim.server import ServeOptions, run  # the CLI is the one place allowed to start the sim

    run(ServeOptions(adb_port, count, data, snapshots, token_file, announce, host))


# --------------------------------------------------------------------------- k8s (scaling, H8)


@k8s_app.command("render")
def k8s_render(
    replicas: int = typer.Option(..., "--replicas", "-n", help="Number of device pods (one device each)."),
    image: str = typer.Option(..., "--image", help="The sim or emulator image the pods run."),
    out_dir: Path = typer.Option(Path("k8s"), "--out", help="Folder to write the manifests into."),
    kind: str = typer.Option("sim", "--kind", help="sim (simulated device) or emulator (needs KVM)."),
    name: str = typer.Option("mgfarm", "--name", help="Farm name: StatefulSet, Service and pod prefix."),
    namespace: str = typer.Option("default", "--namespace", help="Namespace of every object."),
    cpu: str | None = typer.Option(None, "--cpu", help="CPU request per replica (sim 250m, emulator 2)."),
    memory: str | None = typer.Option(
        None, "--memory", help="Memory request per replica (default sim 256Mi, emulator 4Gi)."
    ),
) -> None:
    """Write a StatefulSet, a headless Service and the farm config for N device pods.

    Example: mgfarm k8s render --replicas 8 --image mgfarm-sim:latest --out k8s/ && kubectl apply -f k8s/
    """
    from mgfarm.k8s import RenderOptions, parse_kind, write_manifests

    opts = RenderOptions(
        replicas=replicas,
        image=image,
        kind=parse_kind(kind),
        name=name,
        namespace=namespace,
        cpu=cpu,
        memory=memory,
    )
    for path in write_manifests(opts, out_dir):
        out.print(f"wrote {path}", highlight=False)
    out.print(f"apply with: kubectl apply -f {out_dir}/   (trainer endpoints: {out_dir}/farm/farm.yaml)")


def main() -> None:
    """Console-script entry point: user errors become one line on stderr."""
    try:
        app()
    except MgfarmError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(exc.exit_code)
