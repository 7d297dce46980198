"""Agents: the interface (`act(observation) -> action`) and the built-in ones.

Bring your own agent as a class with

    class MyAgent:
        def reset(self, goal: str, info: dict) -> None: ...          # optional, once per episode
        def act(self, observation: dict) -> dict: ...                  # one AndroidWorld JSON action

and run it with `--agent my_module:MyAgent` (the class is built with no arguments). The observation
holds `goal` (str), `step` (int), `ui_elements` (list of dicts: index, text, content_desc,
resource_id, class_name, bounds [l, t, r, b], clickable, editable, checked, ...) and `screenshot`
(a PIL image, when the run records or the agent asks for it with a class attribute
`wants_screenshot = True`). Actions are AndroidWorld's JSON schema, e.g. {"action_type": "click",
"index": 3}, {"action_type": "input_text", "text": "Ada", "index": 5}, {"action_type": "answer",
"text": "4"}, {"action_type": "status", "goal_status": "complete"}. Answer several typed fields at
once with a JSON object as text: '{"count": 4}'.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
import traceback
import urllib.request
from pathlib import Path
from typing import Any, Protocol

from mgfarm.errors import MgfarmError
from mgfarm.tasks.schema import TaskInstance

Observation = dict[str, Any]
Action = dict[str, Any]
DONE: Action = {"action_type": "status", "goal_status": "complete"}
# A scripted agent that cannot play its steps here (target not on screen) says so with this key, so
# `tasks check` counts the run as n/a, and never as the "infeasible" an infeasible goal asks for.
UNPLAYABLE = "mgfarm_unplayable"
GIVE_UP: Action = {"action_type": "status", "goal_status": "infeasible", UNPLAYABLE: True}


class Agent(Protocol):
    """What the eval runner (`mgfarm.env.runner`) drives: one action per observation."""

    def act(self, observation: Observation) -> Action: ...


def field_of(element: Any, name: str) -> Any:
    """An attribute of a UI element given as a dataclass or as a dict."""
    return element.get(name) if isinstance(element, dict) else getattr(element, name, None)


def matches(element: Any, selector: dict[str, Any]) -> bool:
    """Whether a UI element satisfies a selector (text, text_contains, resource_id, desc, class_name)."""
    text = str(field_of(element, "text") or "")
    for key, want in selector.items():
        if key == "instance":
            continue
        if key == "text" and text.strip() != str(want).strip():
            return False
        if key == "text_contains" and str(want).casefold() not in text.casefold():
            return False
        if key == "desc" and str(field_of(element, "content_desc") or "") != str(want):
            return False
        if key == "resource_id":
            rid = str(field_of(element, "resource_id") or "")
            if rid != str(want) and not rid.endswith(f":id/{want}"):
                return False
        if key == "class_name" and not str(field_of(element, "class_name") or "").endswith(str(want)):
            return False
    return True


def find_element(elements: list[Any], selector: dict[str, Any]) -> int | None:
    """Index (into the observed list) of the selector's match, or None."""
    hits = [i for i, el in enumerate(elements) if matches(el, selector)]
    nth = int(selector.get("instance", 0))
    return hits[nth] if len(hits) > nth else None


class ScriptedAgent:
    """Plays a template's selector steps against what is on screen (the oracle and near-misses).

    A selector that is not on screen yet gets one `wait`, then up to `max_scrolls` scrolls down,
    before the agent gives up with status infeasible.
    """

    PICKER_ACTIONS = 60  # taps one pick_date / pick_time may take (month arrows, fields) before giving up

    def __init__(self, steps: list[Any], instance: TaskInstance, max_scrolls: int = 4) -> None:
        self.steps = [instance.render(s) for s in steps]
        self.answer_fields = list(instance.answer_fields)
        self.max_scrolls = max_scrolls
        self.position = 0
        self.misses = 0
        self.within = 0  # actions taken inside the current (picker) step

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        self.position, self.misses, self.within = 0, 0, 0

    def act(self, observation: Observation) -> Action:
        if self.position >= len(self.steps):
            return DONE
        step = self.steps[self.position]
        kind, args = (step, None) if isinstance(step, str) else next(iter(step.items()))
        elements = list(observation.get("ui_elements") or [])
        if kind in ("pick_date", "pick_time"):
            from mgfarm.tasks.pickers import PICKERS  # it reads elements with this module's selectors

            action, finished = PICKERS[str(kind)](str(args), elements)
            if action is not None and not finished:
                self.within += 1
                self.misses = 0
                return action if self.within <= self.PICKER_ACTIONS else GIVE_UP
        else:
            action = self._translate(str(kind), args, elements)
        if action is None:  # the target is not visible (yet)
            self.misses += 1
            if self.misses == 1:
                return {"action_type": "wait"}
            if self.misses - 1 <= self.max_scrolls:
                return {"action_type": "scroll", "direction": "down"}
            return GIVE_UP
        self.position += 1
        self.misses, self.within = 0, 0
        return action

    def _translate(self, kind: str, args: Any, elements: list[Any]) -> Action | None:
        if kind in ("click", "long_press", "double_tap"):
            index = find_element(elements, args)
            return None if index is None else {"action_type": kind, "index": index}
        if kind == "input_text":
            action: Action = {"action_type": "input_text", "text": str(args["text"])}
            if "target" in args:
                index = find_element(elements, args["target"])
                if index is None:
                    return None
                action["index"] = index
                action["clear_text"] = bool(args.get("clear", True))
            return action
        if kind == "open_app":  # by its label, as an agent says it; the env's app table resolves it
            return {"action_type": "open_app", "app_name": str(args)}
        if kind == "scroll":
            return {"action_type": "scroll", "direction": str(args)}
        if kind == "answer":
            values = dict(args)
            text = str(next(iter(values.values()))) if len(values) == 1 else json.dumps(values)
            return {"action_type": "answer", "text": text}
        if kind == "status":
            return {"action_type": "status", "goal_status": str(args or "complete")}
        return {"action_type": kind}


def oracle_agent(instance: TaskInstance) -> ScriptedAgent:
    """The template's reference solution."""
    return ScriptedAgent(instance.task.oracle, instance)


def near_miss_agent(instance: TaskInstance) -> ScriptedAgent | None:
    """A plausible wrong solution (other parameter values and/or other steps), or None if undefined."""
    miss = instance.task.near_miss
    if miss is None:
        return None
    return variant_agent(instance, miss.oracle, miss.replace)


def variant_agent(instance: TaskInstance, steps: list[Any] | None, replace: dict[str, Any]) -> ScriptedAgent:
    """The oracle's steps (or `steps`) played with some parameters replaced (rendered first)."""
    changed = instance.model_copy(
        update={"params": {**instance.params, **{k: instance.render(v) for k, v in replace.items()}}}
    )
    return ScriptedAgent(instance.task.oracle if steps is None else steps, changed)


class SequenceAgent:
    """Plays agents one after the other (the oracle twice, wrong then right, ...).

    A part that finishes (status complete) hands over to the next; a part that gives up ends the
    whole run as infeasible, so `tasks check` knows the combination could not be played.
    """

    BACKS = 6  # between parts: back out of the app (so it starts afresh), then home

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts
        self.current = 0
        self.pending: list[Action] = []

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        self.current = 0
        self.pending = []
        for part in self.parts:
            if callable(getattr(part, "reset", None)):
                part.reset(goal, info)

    def act(self, observation: Observation) -> Action:
        if self.pending:
            return self.pending.pop(0)
        action = self.parts[self.current].act(observation)
        done = action.get("action_type") == "status" and action.get("goal_status") == "complete"
        if not done or self.current == len(self.parts) - 1:
            return action
        self.current += 1
        self.pending = [{"action_type": "navigate_back"}] * (self.BACKS - 1) + [
            {"action_type": "navigate_home"}
        ]
        return {"action_type": "navigate_back"}


class NothingAgent:
    """Declares the task complete at once: every task must reject it."""

    def act(self, observation: Observation) -> Action:
        return DONE


class RandomAgent:
    """Taps, scrolls and goes back at random (seeded): a floor for success rates."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        elements = list(observation.get("ui_elements") or [])
        roll = self.rng.random()
        if elements and roll < 0.7:
            return {"action_type": "click", "index": self.rng.randrange(len(elements))}
        if roll < 0.85:
            return {"action_type": "scroll", "direction": self.rng.choice(["up", "down"])}
        return {"action_type": "navigate_back"}


class ReplayAgent:
    """Replays actions from a file: a JSON list of actions, or JSON lines with an `action` key each."""

    def __init__(self, path: Path) -> None:
        self.actions = load_actions(path)
        self.position = 0

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        self.position = 0

    def act(self, observation: Observation) -> Action:
        if self.position >= len(self.actions):
            return DONE
        self.position += 1
        return self.actions[self.position - 1]


def load_actions(path: Path) -> list[Action]:
    """Actions from a replay file (a recorded episode.jsonl works as is)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MgfarmError(f"Cannot read replay file {path} ({exc.strerror}); check the path.") from exc
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise MgfarmError(f"{path}:{exc.lineno}: not JSON; give a JSON list or JSON lines.") from exc
    return [
        dict(i.get("action", i))
        for i in items
        if isinstance(i, dict) and (i.get("action") or "action_type" in i)
    ]


class ChatAgent:
    """Reference agent for any OpenAI-compatible chat endpoint (not used in tests).

    Configure with MGFARM_LLM_BASE_URL (e.g. http://localhost:8000/v1), MGFARM_LLM_MODEL and
    optionally MGFARM_LLM_API_KEY. It sends the goal and the numbered UI elements as text and expects
    one JSON action back.
    """

    PROMPT = (
        "You operate an Android phone to reach a goal. Reply with exactly one JSON action in "
        'AndroidWorld\'s schema, e.g. {"action_type": "click", "index": 3}, '
        '{"action_type": "input_text", "text": "hi", "index": 2}, {"action_type": "open_app", '
        '"app_name": "Contacts"}, {"action_type": "answer", "text": "..."} or '
        '{"action_type": "status", "goal_status": "complete"}.'
    )

    def __init__(self) -> None:
        self.base_url = os.environ.get("MGFARM_LLM_BASE_URL", "").rstrip("/")
        self.model = os.environ.get("MGFARM_LLM_MODEL", "")
        if not self.base_url or not self.model:
            raise MgfarmError("The chat agent needs MGFARM_LLM_BASE_URL and MGFARM_LLM_MODEL; set both.")
        self.api_key = os.environ.get("MGFARM_LLM_API_KEY", "")
        self.history: list[dict[str, str]] = []

    def reset(self, goal: str, info: dict[str, Any]) -> None:
        self.history = [{"role": "system", "content": self.PROMPT}]

    def act(self, observation: Observation) -> Action:
        screen = "\n".join(self._describe(el) for el in observation.get("ui_elements") or [])
        self.history.append(
            {"role": "user", "content": f"Goal: {observation.get('goal')}\nScreen:\n{screen}"}
        )
        reply = self._complete(self.history)
        self.history.append({"role": "assistant", "content": reply})
        start, end = reply.find("{"), reply.rfind("}")
        try:
            return dict(json.loads(reply[start : end + 1]))
        except (ValueError, TypeError, RecursionError):  # not a JSON object: the model said nothing usable
            return {"action_type": "wait"}

    @staticmethod
    def _describe(el: Any) -> str:
        label = field_of(el, "text") or field_of(el, "content_desc") or field_of(el, "resource_id")
        return f"[{field_of(el, 'index')}] {str(field_of(el, 'class_name')).rsplit('.', 1)[-1]} {label!r}"

    def _complete(self, messages: list[dict[str, str]]) -> str:
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0}).encode()
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        with urllib.request.urlopen(request, timeout=120) as response:
            data = json.loads(response.read())
        return str(data["choices"][0]["message"]["content"])


def failure(exc: BaseException) -> str:
    """`Type: message (at file:line)` of the innermost frame, for one-line error reports."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"


def load_class(spec: str) -> Any:
    """`module:Class` -> a new instance (the current folder is importable, like `python -m`)."""
    module_name, _, class_name = spec.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise MgfarmError(
            f"Cannot import {module_name!r} for --agent {spec} ({exc}); check PYTHONPATH."
        ) from exc
    except Exception as exc:  # the user's module is broken: say where, without a traceback
        raise MgfarmError(f"Importing {module_name} failed: {failure(exc)}; fix the agent's module.") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise MgfarmError(f"Module {module_name} has no {class_name!r}; use --agent module:Class.")
    try:
        agent = cls()
    except Exception as exc:
        raise MgfarmError(f"{spec}() failed: {failure(exc)}; fix the agent's constructor.") from exc
    if not callable(getattr(agent, "act", None)):
        raise MgfarmError(f"{spec} has no act(observation) method; see docs/tasks.md.")
    return agent


BUILTIN = ("oracle", "nothing", "random", "chat", "replay:FILE", "module:Class")


def make_agent(spec: str, instance: TaskInstance, seed: int = 0) -> Any:
    """An agent for one episode from a --agent value."""
    if spec == "oracle":
        return oracle_agent(instance)
    if spec == "near_miss":
        agent = near_miss_agent(instance)
        if agent is None:
            raise MgfarmError(f"Task {instance.task.id} defines no near_miss; pick another agent.")
        return agent
    if spec in ("nothing", "noop"):
        return NothingAgent()
    if spec == "random":
        return RandomAgent(seed)
    if spec == "chat":
        return ChatAgent()
    if spec.startswith("replay:"):
        return ReplayAgent(Path(spec.removeprefix("replay:")))
    if ":" in spec:
        return load_class(spec)
    raise MgfarmError(f"Unknown agent {spec!r}; use one of: {', '.join(BUILTIN)}.")
