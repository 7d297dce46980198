"""Episodes of eval, run-task and `tasks check`: jobs played on `MobileEnv`s over leased replicas.

One worker thread per leased replica takes jobs from a shared queue. An episode is the env's own
reset (snapshot, time zone, setup), steps (action, observation) and judge, so these commands, an
`EnvPool` and a training loop share one episode loop, one trajectory format (`RecordEpisodes`)
and the leases that keep two of them off one replica.
"""

from __future__ import annotations

import os
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium
from PIL import Image

from mgfarm.env.env import BeforeJudge, MobileEnv
from mgfarm.env.lease import LeaseError
from mgfarm.env.recorder import Recorder, trajectory
from mgfarm.errors import MgfarmError
from mgfarm.farm.ports import free_port
from mgfarm.farm.profiles import DEFAULT_PROFILE, check_profile
from mgfarm.farm.state import READY, FarmState, load_farm
from mgfarm.tasks.adversaries import Tamper
from mgfarm.tasks.agents import UNPLAYABLE, failure, make_agent
from mgfarm.tasks.catalog import Catalog
from mgfarm.tasks.jobs import EpisodeResult, Job
from mgfarm.tasks.schema import TaskTemplate
from mgfarm.wrappers import RecordEpisodes, mobile

Env = gymnasium.Env[dict[str, Any], Any]
LEASE_WAIT = 60.0  # seconds to wait for a first free replica (another run may be finishing)
ACTION_WAIT = 0.3  # seconds after an action before observing: scripted agents need no more


def wants_screenshot(agent: Any) -> bool:
    """Whether an agent asks for screenshots (a `wants_screenshot = True` attribute)."""
    return bool(getattr(agent, "wants_screenshot", False))


def agent_observation(obs: dict[str, Any], info: dict[str, Any], step: int) -> dict[str, Any]:
    """What an agent's `act` gets: goal, step, UI elements as dicts and, when taken, the screenshot."""
    observation: dict[str, Any] = {"goal": obs["goal"], "step": step, "ui_elements": info["ui_elements"]}
    if "screenshot" in obs:
        observation["screenshot"] = Image.fromarray(obs["screenshot"])
    return observation


def _before_judge(after: Tamper, feasible: bool) -> BeforeJudge:
    """A job's tamper as the env's hook. On a feasible goal an agent that gave up (infeasible) is judged
    untouched; on an infeasible one, saying so is the play the damage follows."""

    def run(device: Any, instance: Any, baseline: Any, status: str) -> bool | None:
        return None if status == "infeasible" and feasible else after(device, instance, baseline)

    return run


def run_episode(env: Env, job: Job) -> EpisodeResult:
    """Reset, let the agent act until it stops or the budget runs out, judge. Errors end it as failed."""
    task = job.task
    label = job.agent if isinstance(job.agent, str) else ""
    result = EpisodeResult(task.id, task.app, task.difficulty, job.seed, label, job.key or label, "")
    result.timezone = job.timezone or ""
    base = mobile(env)
    start = time.perf_counter()
    options: dict[str, Any] = {"task_id": task.id, "timezone": job.timezone, "budget": job.budget}
    if job.after is not None:
        options["before_judge"] = _before_judge(job.after, getattr(task, "feasible", True))
    if not isinstance(task, TaskTemplate):  # an ExternalTask (AndroidWorld's): it sets up and judges
        options["task"] = task
    folder: Path | None = None
    try:
        obs, info = env.reset(seed=job.seed, options=options)
        folder = env.folder if isinstance(env, RecordEpisodes) else None
        instance = base.instance
        result.goal, result.serial = instance.goal, str(info["serial"])
        if isinstance(job.agent, str):
            agent = make_agent(job.agent, instance, job.seed)
        else:
            agent = job.agent(instance)
            result.agent = type(agent).__name__
            result.key = job.key or result.agent
        if callable(getattr(agent, "reset", None)):
            agent.reset(instance.goal, {"task_id": task.id, "seed": job.seed, "answer": task.answer})
        _play(env, agent, obs, info, result)
        result.judge_seconds = base.last_timings.get("judge_ms", 0.0) / 1000
    except MgfarmError as exc:
        result.error = str(exc)
    except Exception as exc:  # a broken agent or device must not stop the other episodes
        result.error = failure(exc)
    result.seconds = time.perf_counter() - start
    if folder is not None:  # the recorded events are the trajectory (with the screenshots' paths)
        result.trajectory = trajectory(folder, prefix=f"{folder.name}/")
    return result


def _play(env: Env, agent: Any, obs: dict[str, Any], info: dict[str, Any], result: EpisodeResult) -> None:
    """The agent's turns on the env, then the verdict of the step that ended the episode."""
    terminated = truncated = gave_up = False
    while not (terminated or truncated):
        action = agent.act(agent_observation(obs, info, result.steps))
        if isinstance(action, dict) and UNPLAYABLE in action:  # a scripted agent could not play here
            gave_up = True
            action = {k: v for k, v in action.items() if k != UNPLAYABLE}
        entry: dict[str, Any] = {"step": result.steps, "action": action}
        result.trajectory.append(entry)
        result.steps += 1
        obs, _, terminated, truncated, info = env.step(action)
        if info.get("error"):
            entry["error"] = info["error"]
    if info.get("failed"):
        raise MgfarmError(f"the replica failed during the episode: {info['failed']}")
    result.status = str(info.get("goal_status") or "") if terminated else "budget"
    if info.get("before_judge") is False or gave_up:  # nothing to damage, or the script did not fit
        result.status = "n/a"
    verdict = info["judge"]
    result.success, result.progress, result.clean = verdict["success"], verdict["progress"], verdict["clean"]
    result.side_effects, result.checks = verdict["side_effects"], verdict["checks"]
    result.answer = info.get("answer")


def _open_env(
    farm: str, snapshot: str | None, screenshots: bool, wait: float, catalog: Catalog | None
) -> MobileEnv:
    return MobileEnv(
        farm=farm,
        snapshot=snapshot,
        screenshot=screenshots,
        lease_timeout=wait,
        wait_seconds=ACTION_WAIT,
        catalog=catalog,
    )


def lease_envs(
    farm: FarmState,
    count: int,
    snapshot: str | None = None,
    screenshots: bool = False,
    record: Path | None = None,
    wait: float = LEASE_WAIT,
    catalog: Catalog | None = None,
) -> list[Env]:
    """Up to `count` envs, each on a replica leased from `farm`; replicas leased elsewhere are skipped.

    Waits up to `wait` seconds for the first free replica, then fails with the lease's sentence
    (how many are ready, that all are leased). `record` wraps each env in `RecordEpisodes`; the envs
    judge with `catalog` (default: the bundled one).
    """
    # A screenshot per observation only when it is recorded or an agent looks at it (the most
    # expensive part of a step otherwise).
    shots = screenshots or record is not None
    first = _open_env(farm.name, snapshot, shots, wait, catalog)
    envs: list[MobileEnv] = [first]

    def another(_: int) -> MobileEnv | None:
        try:
            return _open_env(farm.name, snapshot, shots, 0.0, catalog)
        except LeaseError:  # leased by another run, or not ready: use the others
            return None

    try:
        with ThreadPoolExecutor(max_workers=max(1, count - 1), thread_name_prefix="mgfarm-lease") as pool:
            envs += [env for env in pool.map(another, range(count - 1)) if env is not None]
    except BaseException:
        for env in envs:
            env.close()
        raise
    if record is None:
        return list(envs)
    recorder = Recorder(record)
    return [RecordEpisodes(env, recorder) for env in envs]


def run_on(
    envs: list[Env], jobs: list[Job], on_done: Callable[[EpisodeResult], None] | None = None
) -> list[EpisodeResult]:
    """Play jobs on the envs (one thread each); results come back in job order."""
    pending: queue.Queue[tuple[int, Job]] = queue.Queue()
    for item in enumerate(jobs):
        pending.put(item)
    results: list[EpisodeResult | None] = [None] * len(jobs)
    lock = threading.Lock()

    def worker(env: Env) -> None:
        while True:
            try:
                index, job = pending.get_nowait()
            except queue.Empty:
                return
            episode = run_episode(env, job)
            with lock:
                results[index] = episode
                if on_done is not None:
                    on_done(episode)

    threads = [threading.Thread(target=worker, args=(env,), daemon=True) for env in envs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in results if r is not None]


def run_jobs(
    jobs: list[Job],
    farm: FarmState,
    replicas: int | None = None,
    record: Path | None = None,
    on_done: Callable[[EpisodeResult], None] | None = None,
    *,
    snapshot: str | None = None,
    screenshots: bool = False,
    catalog: Catalog | None = None,
) -> list[EpisodeResult]:
    """Lease up to `replicas` replicas (default: every ready one), play the jobs, give them back."""
    count = replica_count(farm, replicas, len(jobs))
    envs = lease_envs(farm, count, snapshot, screenshots, record, catalog=catalog)
    try:
        return run_on(envs, jobs, on_done)
    finally:
        for env in envs:
            env.close()


def replica_count(farm: FarmState, replicas: int | None, jobs: int) -> int:
    """How many replicas to lease: the ready ones (or `replicas`), no more than there are jobs."""
    ready = sum(r.state == READY for r in farm.replicas)
    return max(1, min(replicas or ready, jobs))


PRIVATE_FIRST_PORT = 20000  # private farms take console/adb port pairs from 20000 to 59999
PRIVATE_PORTS = 40000


@contextmanager
def farm_for(name: str | None, replicas: int, profile: str | None = None) -> Iterator[FarmState]:
    """The named running farm, or (name None) a private process farm of device `profile` (None: the
    default) that is stopped afterwards. A named farm must run `profile` when one is given."""
    if profile is not None:
        check_profile(profile)
    if name:
        state = load_farm(name)  # its error says how to start a missing farm
        if profile is not None and state.profile != profile:
            raise MgfarmError(
                f"Farm {name!r} runs device profile {state.profile}, not {profile}; leave out --profile "
                f"or start a farm with `mgfarm up --profile {profile}`."
            )
        yield state
        return
    from mgfarm.farm import api
    from mgfarm.snapshots.farm import up

    if not 1 <= replicas <= PRIVATE_PORTS // 2:
        raise MgfarmError(
            f"A private farm takes 1 to {PRIVATE_PORTS // 2} replicas, not {replicas}; change --replicas."
        )
    private = f"tasks-{os.getpid()}"
    # A random first port keeps private farms of parallel runs (CI, several users) off each other's ports.
    first = random.randrange(PRIVATE_FIRST_PORT, PRIVATE_FIRST_PORT + PRIVATE_PORTS - 2 * replicas + 1, 2)
    # owner_pid: if this process is killed before its `finally`, the watchdog stops the farm. Episodes
    # speak adb only, so the devices skip the gRPC server (about 13 MiB and 0.3 s a worker).
    farm = up(
        replicas,
        "process",
        name=private,
        adb_port=free_port(),
        first_port=first,
        owner_pid=os.getpid(),
        grpc=False,
        profile=profile or DEFAULT_PROFILE,
    )
    try:
        yield farm
    finally:
        api.down(private)
