"""The `mgfarm` command line: parse, call, print. Logic lives in the packages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import typer
from rich.console import Console

from mgfarm.errors import MgfarmError
from mgfarm.farm.state import resolve_farm

app = typer.Typer(
    help="mgfarm: a farm of verifiable, resettable Android devices for mobile GUI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich panels print `<bool>` beside every flag, as if it took a value.
    rich_markup_mode=None,
)
tasks_app = typer.Typer(
    help="List, show and check the verifiable task templates.", no_args_is_help=True, rich_markup_mode=None
)
snapshot_app = typer.Typer(
    help="Build and list golden snapshots.", no_args_is_help=True, rich_markup_mode=None
)
sim_app = typer.Typer(help="Run simulated Android devices.", no_args_is_help=True, rich_markup_mode=None)
images_app = typer.Typer(
    help="Build the Docker images (base, sim, emulator).", no_args_is_help=True, rich_markup_mode=None
)
k8s_app = typer.Typer(
    help="Render Kubernetes manifests for a farm.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(tasks_app, name="tasks")
app.add_typer(snapshot_app, name="snapshot")
app.add_typer(sim_app, name="sim")
app.add_typer(images_app, name="images")
app.add_typer(k8s_app, name="k8s")

out = Console()
err = Console(stderr=True)


def plural(count: int, noun: str) -> str:
    """`1 replica`, `4 replicas`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


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


# --------------------------------------------------------------------------- sim serve


@sim_app.command(
    "serve",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def sim_serve(ctx: typer.Context) -> None:
    """Serve simulated devices over ADB, the emulator console and gRPC until SIGTERM or Ctrl-C.

    The options are the simulator's own, shared with `python -m mgfarm.sim serve` (listed by --help).

    Example: mgfarm sim serve --adb-port 5555 --count 4 --announce 5037
    """
    from mgfarm.sim.__main__ import main as serve_main  # the CLI is the one place allowed to start the sim

    raise typer.Exit(serve_main(["serve", *ctx.args], prog="mgfarm sim"))


# --------------------------------------------------------------------------- k8s


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
    new_token: bool = typer.Option(
        False, "--new-token", help="Make a new console token instead of keeping the one in --out."
    ),
) -> None:
    """Write a StatefulSet, a headless Service, a NetworkPolicy and the farm config for N device pods.

    Example: mgfarm k8s render --replicas 8 --image mgfarm/sim:latest --out k8s/ && kubectl apply -f k8s/
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
    for path in write_manifests(opts, out_dir, new_token):
        out.print(f"wrote {path}", highlight=False)
    out.print(f"apply with: kubectl apply -f {out_dir}/   (trainer endpoints: {out_dir}/farm/farm.yaml)")


# --------------------------------------------------------------------------- snapshot


@snapshot_app.command("build")
def snapshot_build(
    recipe: str = typer.Argument(..., help="Recipe name (e.g. golden) or path to a recipe YAML."),
    backend: str = typer.Option(
        "process", "--backend", help="process, docker or emulator (they build snapshots)."
    ),
    image: str = typer.Option("", "--image", help="Docker image to build on (docker backend)."),
    adb_port: int = typer.Option(0, "--adb-port", help="adb server to use (default: a private one)."),
    profile: str = typer.Option(
        "android13", "--profile", help="Device profile to build on: android13, android14 or aosp."
    ),
) -> None:
    """Boot one device, apply a recipe over ADB, save the snapshot and write its manifest.

    Only farms of the same --profile boot into it.

    \b
    Example: mgfarm snapshot build golden --backend docker --image mgfarm/sim:latest
    Example: mgfarm snapshot build golden --profile aosp
    """
    from mgfarm.snapshots.build import build

    manifest = build(
        recipe, backend=backend, image=image, adb_port=adb_port, report=out.print, profile=profile
    )
    out.print(f"built {manifest.summary()} in {manifest.build_seconds:.1f} s", highlight=False)
    if manifest.snapshot_image:
        out.print(f"start a farm on it: mgfarm up --backend docker --image {manifest.snapshot_image}")


@snapshot_app.command("list")
def snapshot_list(json_out: bool = typer.Option(False, "--json", help="Print rows as JSON.")) -> None:
    """List shipped recipes and built snapshots (backend, image, screen, recipe hash, status).

    Example: mgfarm snapshot list --json
    """
    from mgfarm.snapshots.listing import snapshot_table

    table, rows = snapshot_table()
    if json_out:
        print(json.dumps(rows, indent=2))
    else:
        out.print(table)


@snapshot_app.command("rm")
def snapshot_rm(
    snapshot: str = typer.Argument(..., metavar="NAME", help="Snapshot name (see `mgfarm snapshot list`)."),
    backend: str = typer.Option("", "--backend", help="Only this backend's build (default: every one)."),
) -> None:
    """Remove a built snapshot: its manifests, files and committed docker images.

    Example: mgfarm snapshot rm golden --backend docker
    """
    from mgfarm.snapshots.manifest import remove_snapshot

    for item in remove_snapshot(snapshot, backend):
        out.print(f"removed {item}", highlight=False)


# --------------------------------------------------------------------------- tasks, run-task, eval, demo


SUITE_HELP = "all, smoke, train, test, heldout, or an app name."


@tasks_app.command("list")
def tasks_list(
    suite: str = typer.Option("all", "--suite", "-s", help=SUITE_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print ids and goals as JSON."),
) -> None:
    """List the task templates of a suite.

    Example: mgfarm tasks list --suite smoke
    """
    from mgfarm.catalog import load_catalog
    from mgfarm.tasks.commands import tasks_table

    templates = load_catalog().suite(suite)
    if json_out:
        print(
            json.dumps(
                [t.model_dump(include={"id", "apps", "difficulty", "split", "goal"}) for t in templates]
            )
        )
    else:
        out.print(tasks_table(templates))


@tasks_app.command("stats")
def tasks_stats(
    suite: str = typer.Option("all", "--suite", "-s", help=SUITE_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
    markdown: bool = typer.Option(False, "--markdown", help="Print a Markdown table (the README's)."),
) -> None:
    """Count the templates per app: operate and query, cross-app, level L1-L4, split.

    Example: mgfarm tasks stats --markdown
    """
    from mgfarm.catalog import load_catalog
    from mgfarm.tasks.commands import catalog_stats, stats_markdown, stats_table

    templates = load_catalog().suite(suite)
    if json_out:
        print(json.dumps(catalog_stats(templates), indent=2))
    elif markdown:
        print(stats_markdown(templates))
    else:
        out.print(stats_table(templates))


@tasks_app.command("show")
def tasks_show(
    task_id: str = typer.Argument(..., help="Template id, e.g. settings.wifi_off."),
    seed: int = typer.Option(0, "--seed", help="Seed whose parameters to draw."),
) -> None:
    """Show one template with the parameters and goal drawn for a seed.

    Example: mgfarm tasks show contacts.add_contact --seed 3
    """
    import yaml

    from mgfarm.catalog import load_catalog
    from mgfarm.tasks.commands import show_task

    print(
        yaml.safe_dump(show_task(load_catalog(), task_id, seed), sort_keys=False, allow_unicode=True).rstrip()
    )


@tasks_app.command("checks")
def tasks_checks() -> None:
    """List the checks (verifiers) templates can name in their judge.

    Example: mgfarm tasks checks
    """
    from mgfarm.catalog import load_catalog
    from mgfarm.tasks.commands import checks_table

    out.print(checks_table(load_catalog()))


@tasks_app.command("check")
def tasks_check(
    ids: list[str] = typer.Argument(None, help="Template ids or globs (default: the whole catalog)."),
    seeds: int = typer.Option(3, "--seeds", "-k", help="Seeds per template."),
    farm: str | None = typer.Option(None, "--farm", help="Use this running farm (default: a private one)."),
    replicas: int = typer.Option(3, "--replicas", "-n", help="Devices of the private farm."),
    timezones: str = typer.Option(
        "UTC,America/Los_Angeles,Asia/Kolkata", "--timezones", help="Device time zones, comma-separated."
    ),
    zone_per_seed: bool = typer.Option(
        False, "--zone-per-seed", help="Play seed i in zone i mod Z only, not in every zone (CI)."
    ),
    queries: bool = typer.Option(
        False, "--queries", help="Only the query templates; each answer is also read off the screen."
    ),
    profile: str | None = typer.Option(
        None,
        "--profile",
        help="Device profile of the private farm, as `mgfarm up --profile`: android13 (default), "
        "android14 or aosp; with --farm, the farm must run it.",
    ),
) -> None:
    """Prove every judge against its adversary matrix: the oracle and alternatives accepted, every
    adversary (nothing, twice, collateral damage, over-broad, near misses, ...) rejected.

    \b
    Example: mgfarm tasks check 'settings.*' --seeds 3 --timezones UTC,Asia/Kolkata
    Example: mgfarm tasks check --queries --seeds 5 --zone-per-seed   (every answer read off the screen)
    Example: mgfarm tasks check 'clock.*' --seeds 1 --profile aosp
    """
    from rich.markup import escape

    from mgfarm.catalog import load_catalog
    from mgfarm.env.evaluate import run_check
    from mgfarm.tasks.commands import check_matrix_table, parse_timezones

    if queries:  # the query templates among the ones named (default: the whole catalog)
        ids = [t.id for t in load_catalog().select(ids or []) if t.kind == "query"]
        if not ids:
            raise MgfarmError("None of the templates given is a query (one with `answer:`).")
    zones = parse_timezones(timezones)
    result = run_check(load_catalog(), ids or [], seeds, farm, replicas, zones, zone_per_seed, profile)
    out.print(check_matrix_table(result))
    for row in result.rows:
        for p in row.problems:
            out.print(f"[red]{escape(f'{row.task_id}: {p}')}[/]", highlight=False, soft_wrap=True)
    out.print(
        f"{result.played} episodes judged, {result.not_applicable} n/a, {result.errors} errors "
        f"({len(result.rows)} templates x {seeds} seeds x {timezones.count(',') + 1} time zones"
        f"{', one zone per seed' if zone_per_seed else ''})",
        highlight=False,
    )
    out.print(f"false accepts {result.false_accepts}, false rejects {result.false_rejects}", highlight=False)
    if result.false_accepts or result.false_rejects or result.errors:
        raise typer.Exit(1)


@app.command("run-task")
def run_task(
    task_id: str = typer.Argument(..., help="Template id, e.g. contacts.add_contact."),
    seed: int = typer.Option(0, "--seed", help="First seed; episode i uses seed + i."),
    agent: str = typer.Option(
        "oracle", "--agent", "-a", help="oracle, nothing, random, chat, replay:FILE or module:Class."
    ),
    episodes: int = typer.Option(1, "--episodes", "-e", help="Episodes to run (consecutive seeds)."),
    record: Path | None = typer.Option(None, "--record", help="Folder for results, report and thumbnails."),
    farm: str | None = typer.Option(
        None, "--farm", help="Running farm to use (default: the only one up, else 'default')."
    ),
) -> None:
    """Run one task with an agent on a running farm and print the verdict.

    Example: mgfarm run-task settings.wifi_off --seed 3 --agent oracle --record runs/
    """
    from mgfarm.catalog import load_catalog
    from mgfarm.env.evaluate import run_eval
    from mgfarm.tasks.commands import episode_line

    run = run_eval(
        load_catalog(),
        [task_id],
        "all",
        agent,
        [seed + i for i in range(episodes)],
        farm,
        None,
        record,
        record=record is not None,
    )
    for r in run.results:
        out.print(episode_line(r), highlight=False)
    if run.report is not None:
        out.print(f"report: {run.report}", highlight=False)
    if not all(r.success for r in run.results):
        raise typer.Exit(1)


@app.command("eval")
def eval_suite(
    suite: str = typer.Option(
        "smoke", "--suite", "-s", help="smoke, train, test, all, an app name, or androidworld."
    ),
    agent: str = typer.Option(
        "oracle", "--agent", "-a", help="oracle, nothing, random, chat, replay:FILE or module:Class."
    ),
    replicas: int | None = typer.Option(
        None, "--replicas", "-n", help="Replicas to use (default: all ready)."
    ),
    seeds: int = typer.Option(1, "--seeds", "-k", help="Seeds per template (0..K-1)."),
    farm: str | None = typer.Option(
        None, "--farm", help="Running farm to use (default: the only one up, else 'default')."
    ),
    out_dir: Path = typer.Option(Path("runs"), "--out", help="Folder for results.json and report.html."),
    no_record: bool = typer.Option(False, "--no-record", help="Record no screenshots (faster)."),
    tasks: list[str] = typer.Option(
        None,
        "--tasks",
        "-t",
        help="androidworld: task classes or globs, repeated or comma-separated (default: every task "
        "whose apps the devices have).",
    ),
    seed: int = typer.Option(
        30, "--seed", help="androidworld: seed of AndroidWorld's task parameters (its own default, 30)."
    ),
    android_world: Path | None = typer.Option(
        None,
        "--android-world",
        help="androidworld: an AndroidWorld checkout (default $MGFARM_ANDROID_WORLD, else an installed "
        "android_world).",
    ),
) -> None:
    """Evaluate an agent on a suite in parallel over the farm; writes results.json and report.html.

    --suite androidworld runs AndroidWorld's own task classes, unchanged, each reset by snapshot load;
    an AndroidWorld agent (module:Class subclassing its EnvironmentInteractingAgent) runs through an
    adapter. It also writes tasks.md, a table per task.

    \b
    Example: mgfarm eval --suite test --agent my_agent:Agent --replicas 16
    Example: mgfarm eval --suite androidworld --agent nothing --tasks 'Markor*' --replicas 4
    """
    if suite == "androidworld":
        eval_androidworld(agent, replicas, farm, out_dir, no_record, tasks or [], seed, android_world)
        return
    if tasks or android_world is not None:
        fail("--tasks and --android-world are for --suite androidworld; drop them or pass that suite.")
    from mgfarm.catalog import load_catalog
    from mgfarm.env.evaluate import run_eval
    from mgfarm.tasks.commands import rates_table

    seed_list = list(range(seeds))
    run = run_eval(
        load_catalog(),
        [],
        suite,
        agent,
        seed_list,
        resolve_farm(farm),
        replicas,
        out_dir,
        record=not no_record,
    )
    out.print(rates_table(run.results, "app"))
    out.print(rates_table(run.results, "difficulty"))
    ok = sum(r.success for r in run.results)
    out.print(
        f"{ok}/{len(run.results)} succeeded in {run.seconds:.1f} s on {plural(run.devices, 'replica')}",
        highlight=False,
    )
    out.print(f"results: {run.folder}/results.json\nreport:  {run.report}", highlight=False)


def eval_androidworld(
    agent: str,
    replicas: int | None,
    farm: str | None,
    out_dir: Path,
    no_record: bool,
    tasks: list[str],
    seed: int,
    android_world: Path | None,
) -> None:
    """`eval --suite androidworld`: the per-task table and where the results are."""
    from mgfarm.suites.aw_eval import rows_table, run_suite
    from mgfarm.tasks.commands import rates_table

    patterns = [p.strip() for value in tasks for p in value.split(",") if p.strip()]
    run = run_suite(
        resolve_farm(farm), agent, seed, patterns, replicas, out_dir, android_world, record=not no_record
    )
    out.print(rows_table(run.rows))
    out.print(rates_table(run.results, "app"))
    ok = sum(r.success for r in run.results)
    skipped = len(run.rows) - len(run.results)
    out.print(
        f"{ok}/{len(run.results)} succeeded ({skipped} skipped) in {run.seconds:.1f} s on "
        f"{plural(run.devices, 'replica')}",
        highlight=False,
    )
    out.print(f"results: {run.folder}/results.json\nreport:  {run.report}", highlight=False)


@app.command("demo")
def demo(
    replicas: int = typer.Option(4, "--replicas", "-n", help="Simulated devices to start."),
    out_dir: Path = typer.Option(Path("runs"), "--out", help="Folder for the report."),
) -> None:
    """Start a process farm, evaluate the oracle on the smoke suite, show the table, stop the farm.

    Example: mgfarm demo --replicas 4
    """
    from mgfarm.catalog import load_catalog
    from mgfarm.env.evaluate import run_eval
    from mgfarm.tasks.commands import rates_table

    devices = plural(replicas, "simulated device")
    out.print(f"starting {devices} and running the smoke suite with the oracle agent ...")
    run = run_eval(load_catalog(), [], "smoke", "oracle", [0], None, replicas, out_dir)
    out.print(rates_table(run.results, "app"))
    out.print(rates_table(run.results, "difficulty"))
    ok = sum(r.success for r in run.results)
    out.print(
        f"{ok}/{len(run.results)} succeeded in {run.seconds:.1f} s; the farm is stopped.", highlight=False
    )
    report = run.report.resolve() if run.report is not None else "-"
    out.print(f"open the report: {report}", highlight=False)


# --------------------------------------------------------------------------- farm


@app.command()
def up(
    replicas: int | None = typer.Option(None, "--replicas", "-n", help="Devices to start (default 1)."),
    backend: str | None = typer.Option(
        None, "--backend", help="process (default), docker, emulator, or existing (devices you already run)."
    ),
    devices: list[str] | None = typer.Option(
        None,
        "--device",
        help="With --backend existing: a device to adopt, SERIAL or HOST:PORT[,console=PORT]; repeat it.",
    ),
    image: str | None = typer.Option(None, "--image", help="Docker image (default mgfarm/sim:latest)."),
    snapshot: str | None = typer.Option(
        None, "--snapshot", help="Snapshot every replica starts from (none: never reset, existing only)."
    ),
    profile: str | None = typer.Option(
        None,
        "--profile",
        help="Device profile: android13 (default, AndroidWorld's google_apis image), android14, "
        "or aosp (AOSP's Clock, Contacts, Phone and Files).",
    ),
    grpc: bool | None = typer.Option(
        None,
        "--grpc/--no-grpc",
        help="Give each device an emulator gRPC port, as android_env uses (default on; "
        "--no-grpc saves about 13 MiB and 0.3 s per worker process).",
        show_default=False,
    ),
    name: str | None = typer.Option(None, "--farm", "--name", help="Farm name (default 'default')."),
    adb_port: int | None = typer.Option(
        None, "--adb-port", help="Share this adb server (default: the farm gets a private one)."
    ),
    cpus: float | None = typer.Option(
        None, "--cpus", help="CPU limit per container (docker; default from the image: sim 1, emulator 2)."
    ),
    memory: str | None = typer.Option(
        None, "--memory", help="Memory limit per container, e.g. 256m (default: sim 256m, emulator 4g)."
    ),
    storage: str | None = typer.Option(
        None,
        "--storage",
        help="Data partition of each simulated device, e.g. 2g (the default) or 512m: a write beyond it "
        "fails with 'No space left on device', so no device can fill the host's disk.",
    ),
    keep_partial: bool = typer.Option(False, "--keep-partial", help="Keep the replicas that booted."),
    ray_address: str | None = typer.Option(None, "--ray", help="Ray cluster address: one farm per node."),
    per_node: int = typer.Option(0, "--replicas-per-node", help="With --ray: devices on each node."),
    kvm: bool = typer.Option(False, "--kvm", help="With --ray: only nodes offering mgfarm_kvm (emulators)."),
) -> None:
    """Start N devices, wait until each is booted on the golden snapshot, and record the farm.

    Each device gets a console port, an adb port and (process backend, sim image on docker) an
    emulator gRPC port for android_env; `mgfarm ps` lists them.
    Defaults come from ./mgfarm.yaml when present; flags win.

    \b
    Example: mgfarm up --replicas 16 --backend process
    Example: mgfarm up --replicas 4 --profile aosp --no-grpc
    Example: mgfarm up --backend existing --device emulator-5554 --device 10.0.0.5:5555,console=5554
    Example: mgfarm up --ray 10.0.0.1:6379 --replicas-per-node 16   (see docs/scaling.md)
    """
    import time

    if ray_address is not None:
        from mgfarm.ray import cluster
        from mgfarm.ray.commands import farm_options, farms_table

        options = farm_options(image, snapshot, adb_port, cpus, memory, profile, grpc, storage)
        statuses = cluster.up(ray_address, per_node, backend or "process", options, kvm=kvm)
        out.print(farms_table(statuses))
        return

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from mgfarm.farm.config import load_config
    from mgfarm.farm.render import farm_table, summary_line
    from mgfarm.snapshots.farm import up as farm_up

    overrides: dict[str, object] = {"replicas": replicas, "backend": backend, "image": image}
    overrides.update(snapshot=snapshot, name=name, adb_port=adb_port, cpus=cpus, memory=memory)
    overrides.update(devices=devices or None, profile=profile, grpc=grpc, storage=storage)
    cfg = load_config(overrides)
    # Adopted devices (flags or mgfarm.yaml) are as many as named: --replicas may be left out.
    count = len(cfg.devices) if cfg.devices and replicas is None else cfg.replicas
    started = time.monotonic()
    columns = (TextColumn("booting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("boot", total=count)
        farm = farm_up(
            count,
            backend=cfg.backend,
            name=cfg.name,
            image=cfg.image,
            snapshot=cfg.snapshot,
            adb_port=cfg.adb_port,
            first_port=cfg.first_port,
            keep_partial=keep_partial,
            retries=cfg.retries,
            boot_timeout=cfg.boot_timeout,
            workers=cfg.workers,
            cpus=cfg.cpus,
            memory=cfg.memory,
            devices=cfg.devices,
            on_progress=lambda _rep, done, _total: progress.update(task, completed=done),
            grpc=cfg.grpc,
            profile=cfg.profile,
            storage=cfg.storage,
        )
    out.print(farm_table(farm))
    out.print(summary_line(farm, time.monotonic() - started), highlight=False)
    if any(r.state != "ready" for r in farm.replicas):
        raise typer.Exit(1)


@app.command()
def ps(
    name: str | None = typer.Option(None, "--farm", "--name", help="Only this farm (default: every farm)."),
    json_out: bool = typer.Option(False, "--json", help="Print the farms as JSON."),
    ray_address: str | None = typer.Option(None, "--ray", help="Ray cluster address: every node's farm."),
) -> None:
    """List the replicas of running farms: replica, serial, state, uptime, snapshot, ports.

    Example: mgfarm ps --json
    """
    if ray_address is not None:
        from mgfarm.ray import cluster
        from mgfarm.ray.commands import farms_table

        statuses = cluster.ps(ray_address)
        if json_out:
            print(json.dumps(statuses, indent=1))
        else:
            out.print(farms_table(statuses))
        return
    from mgfarm.farm import api
    from mgfarm.farm.render import farm_json, farm_table
    from mgfarm.farm.state import list_farms

    names = [name] if name else list_farms()
    farms = [api.status(n) for n in names]
    if json_out:
        print(json.dumps([farm_json(f) for f in farms], indent=1))
    elif not farms:
        out.print("No farm is up; start one with `mgfarm up --replicas N`.")
    for farm in [] if json_out else farms:
        out.print(farm_table(farm))


@app.command()
def down(
    name: str | None = typer.Option(
        None, "--farm", "--name", help="Farm to stop (default: the only one up, else 'default')."
    ),
    ray_address: str | None = typer.Option(None, "--ray", help="Ray cluster address: stop all farms."),
) -> None:
    """Stop a farm: devices, containers, watchdog, adb transports; verify nothing is left.

    Example: mgfarm down --farm default
    """
    if ray_address is not None:
        from mgfarm.ray import cluster

        for line in cluster.down(ray_address):
            out.print(line, highlight=False)
        return
    from mgfarm.farm import api

    farm = api.down(resolve_farm(name))
    out.print(f"farm {farm.name} is down ({plural(len(farm.replicas), 'replica')} stopped).", highlight=False)


@app.command()
def logs(
    replica: int = typer.Argument(..., help="Replica index (see `mgfarm ps`)."),
    name: str | None = typer.Option(
        None, "--farm", "--name", help="Farm of the replica (default: the only one up, else 'default')."
    ),
    tail: int = typer.Option(200, "--tail", help="How many of the last lines to print."),
) -> None:
    """Print the recent log of one replica's device process or container.

    Example: mgfarm logs 3 --tail 50
    """
    from mgfarm.farm import api

    print(api.logs(resolve_farm(name), replica, tail))


@app.command("exec")
def exec_(
    replica: int = typer.Argument(..., help="Replica index (see `mgfarm ps`)."),
    command: list[str] = typer.Argument(..., help="Shell command to run on the device, after `--`."),
    name: str | None = typer.Option(
        None, "--farm", "--name", help="Farm of the replica (default: the only one up, else 'default')."
    ),
) -> None:
    """Run a shell command on one replica through the managed adb server.

    Example: mgfarm exec 0 -- getprop sys.boot_completed
    """
    from mgfarm.farm import api

    result = api.exec_shell(resolve_farm(name), replica, command)
    sys.stdout.write(result.output)
    raise typer.Exit(result.exit_code)


@app.command()
def restart(
    replica: int = typer.Argument(..., help="Replica index (see `mgfarm ps`)."),
    name: str | None = typer.Option(
        None, "--farm", "--name", help="Farm of the replica (default: the only one up, else 'default')."
    ),
) -> None:
    """Restart one replica and bring it back on the farm's snapshot.

    Example: mgfarm restart 2
    """
    from mgfarm.farm import api

    farm = api.restart(resolve_farm(name), replica)
    rep = farm.replica(replica)
    out.print(f"replica {replica} ({rep.serial}) is {rep.state}.", highlight=False)


@images_app.command("build")
def images_build(
    which: str = typer.Argument("all", help="base, sim, all (base and sim), emulator or emulator-standin."),
    base: str = typer.Option(
        "mgfarm/base:bookworm", "--base", help="Base image for the sim image, e.g. python:3.11-slim."
    ),
    rebuild: bool = typer.Option(False, "--rebuild", help="Build even when the images are current."),
    accept_licenses: bool = typer.Option(
        False,
        "--accept-android-sdk-licenses",
        help="Accept the Android SDK License Agreement (needed by `emulator`, which downloads the SDK).",
    ),
) -> None:
    """Build the registry-free Debian base image and the sim image (skipped when current), or the
    emulator image (real: needs the SDK licence and internet; emulator-standin: a simulated device).

    \b
    Example: mgfarm images build sim --base python:3.11-slim
    Example: mgfarm images build emulator --accept-android-sdk-licenses
    """
    from mgfarm.farm.images import build_images

    build_images(lambda line: out.print(line, highlight=False), which, rebuild, base, accept_licenses)


# --------------------------------------------------------------------------- bench


@app.command()
def bench(
    backend: str = typer.Option("process", "--backend", help="process or docker."),
    replicas: str = typer.Option("", "--replicas", help="Replica counts, e.g. 1,8,64 (quick: 1,4,16)."),
    quick: bool = typer.Option(False, "--quick", help="Small counts: under 5 min on 2 cores."),
    out_dir: Path = typer.Option(Path("bench-results"), "--out", help="Folder for the results."),
    image: str = typer.Option("", "--image", help="Docker image (docker backend)."),
    task: str = typer.Option("", "--task", help="Task the episodes run (default: first smoke task)."),
    readme: Path | None = typer.Option(None, "--update-readme", help="Write the table into this README."),
    screen_scale: int = typer.Option(
        1, "--screen-scale", help="Observations 1/N of the screen a side: 1 (full size), 2 or 4."
    ),
    androidworld: bool = typer.Option(
        False, "--androidworld", help="Instead: the AndroidWorld suite's wall time (1,16 replicas; minutes)."
    ),
) -> None:
    """Measure start-up, memory, reset/step/judge latency and steps/s against replica count.

    Example: mgfarm bench --quick --out bench-results
    """
    from mgfarm.device.device import SCALES

    if screen_scale not in SCALES:
        raise MgfarmError(f"--screen-scale {screen_scale} is unsupported; use 1 (full size), 2 or 4.")
    if androidworld and screen_scale != 1:
        raise MgfarmError("--screen-scale applies to the farm bench, not --androidworld; drop one of them.")
    if androidworld:
        from mgfarm.bench import androidworld as aw_bench
        from mgfarm.bench.run import machine, parse_replicas

        aw_counts = parse_replicas(replicas) if replicas else [1, 16]
        timings = aw_bench.time_suite(aw_counts, [("nothing", "nothing", [])], say=lambda m: err.print(m))
        for line in aw_bench.lines(timings):
            out.print(line, highlight=False)
        out.print(f"wrote {aw_bench.write(timings, out_dir, machine())}", highlight=False)
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from mgfarm.bench.report import LEGEND, console_table, update_readme, write_all
    from mgfarm.bench.run import BenchConfig, parse_replicas, run

    counts = parse_replicas(replicas) if replicas else None
    config = BenchConfig.quick(backend, counts, image) if quick else BenchConfig(backend, image=image)
    if counts and not quick:
        config.replicas = counts
    config.task = task
    config.screen_scale = screen_scale
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"))
    with Progress(*columns, TimeElapsedColumn(), console=err) as bar:
        job = bar.add_task("starting", total=config.phases())
        first = True

        def advance(message: str) -> None:
            nonlocal first
            bar.update(job, description=message, advance=0 if first else 1)
            first = False

        result = run(config, progress=advance)
        bar.update(job, description="done", completed=config.phases())
    out.print(console_table(result))
    out.print(LEGEND, highlight=False)
    cold = result["cold_start_s"]
    out.print(f"cold start, 1 replica: median {cold['median']:.2f} s, p99 {cold['p99']:.2f} s")
    for path in write_all(result, out_dir):
        out.print(f"wrote {path}", highlight=False)
    if readme is not None:
        update_readme(readme, result)
        out.print(f"updated the table in {readme}", highlight=False)


def main() -> None:
    """Console-script entry point: user errors become one line on stderr."""
    try:
        app()
    except MgfarmError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(exc.exit_code)
