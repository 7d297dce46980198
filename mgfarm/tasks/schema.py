"""Task templates: pydantic models, and loading YAML files with errors naming file, line and field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from mgfarm.errors import MgfarmError
from mgfarm.tasks import outcome as outcome_mod
from mgfarm.tasks import params as params_mod
from mgfarm.tasks.yamlines import LineMap, Loc, load_with_lines

Difficulty = Literal["L1", "L2", "L3", "L4"]
# train: what EnvPool and RL trainers draw from; test: what `eval --suite test` reports; heldout: kept
# out of both, for a final score on templates no one tuned against.
Split = Literal["train", "test", "heldout"]
AnswerType = Literal["integer", "number", "money", "text", "date", "time", "boolean", "phone"]
DEFAULT_BUDGET = {"L1": 15, "L2": 30, "L3": 45, "L4": 60}

SETUP_KINDS = (
    "snapshot",
    "settings",
    "content_insert",
    "content_delete",
    "sql",
    "push_file",
    "preferences",
    "set_time",
    "open_app",
    "home",
    "shell",
    "force_stop",
    "clear_app",
    "add_contact",
    "add_event",
    "set_timezone",
    "repeat",
)
SELECTOR_KEYS = ("text", "text_contains", "resource_id", "desc", "class_name", "instance")
ORACLE_KINDS = (
    "open_app",
    "click",
    "long_press",
    "double_tap",
    "input_text",
    "pick_date",
    "pick_time",
    "scroll",
    "navigate_back",
    "navigate_home",
    "keyboard_enter",
    "wait",
    "answer",
    "status",
)


def single_key(step: Any, kinds: tuple[str, ...], what: str) -> tuple[str, Any]:
    """The (kind, args) of a one-key step mapping, or a ValueError saying what is wrong."""
    if isinstance(step, str) and step in kinds:
        return step, None
    if not isinstance(step, dict) or len(step) != 1:
        raise ValueError(f"each {what} is a mapping with exactly one key, one of: {', '.join(kinds)}")
    kind = next(iter(step))
    if kind not in kinds:
        raise ValueError(f"unknown {what} {kind!r}; known: {', '.join(kinds)}")
    return str(kind), step[kind]


def check_selector(sel: Any) -> None:
    """A selector is a mapping of text / resource_id / desc / ... (at least one)."""
    if not isinstance(sel, dict) or not sel or any(k not in SELECTOR_KEYS for k in sel):
        raise ValueError(f"a selector is a mapping of one or more of: {', '.join(SELECTOR_KEYS)}")


def check_oracle_step(kind: str, args: Any) -> None:
    """Shape rules of one oracle step."""
    if kind in ("click", "long_press", "double_tap"):
        check_selector(args)
    elif kind == "input_text":
        if not isinstance(args, dict) or "text" not in args:
            raise ValueError("input_text needs {target: SELECTOR, text: TEXT}")
        if "target" in args:
            check_selector(args["target"])
    elif kind in ("open_app", "scroll", "pick_date", "pick_time") and not isinstance(args, str):
        raise ValueError(f"{kind} takes a string")
    elif kind == "answer" and not isinstance(args, dict):
        raise ValueError("answer takes a mapping of answer field to value")


def _setup_step(step: Any) -> Any:
    kind, args = single_key(step, SETUP_KINDS, "setup step")
    if kind == "repeat":
        if not isinstance(args, dict) or "times" not in args or not isinstance(args.get("steps"), list):
            raise ValueError("repeat needs {times: N, steps: [...]}")
        for inner in args["steps"]:
            _setup_step(inner)
    elif kind == "preferences" and not (
        isinstance(args, dict) and isinstance(args.get("app"), str) and isinstance(args.get("values"), dict)
    ):
        raise ValueError("preferences needs {app: APP, values: {key: value}}")
    return step


def _oracle_step(step: Any) -> Any:
    check_oracle_step(*single_key(step, ORACLE_KINDS, "oracle step"))
    return step


def _param_spec(spec: Any) -> Any:
    problem = params_mod.spec_problem(spec)
    if problem:
        raise ValueError(problem)
    return spec


def _outcome_item(item: Any) -> Any:
    problem = outcome_mod.item_problem(item)
    if problem:
        raise ValueError(problem)
    return item


def _incidental(pattern: Any) -> Any:
    problem = outcome_mod.incidental_problem(pattern)
    if problem:
        raise ValueError(problem)
    return pattern


SetupStep = Annotated[Any, AfterValidator(_setup_step)]
OutcomeItem = Annotated[Any, AfterValidator(_outcome_item)]
IncidentalPattern = Annotated[Any, AfterValidator(_incidental)]
OracleStep = Annotated[Any, AfterValidator(_oracle_step)]
ParamSpec = Annotated[dict[str, Any], BeforeValidator(_param_spec)]


class JudgeNode(BaseModel):
    """One node of the judge tree: a named check with arguments, or all/any/not over children."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["check", "all", "any", "not"]
    check: str = ""
    args: dict[str, Any] = Field(default_factory=dict)
    children: list[JudgeNode] = Field(default_factory=list)
    weight: float = 1.0

    @model_validator(mode="before")
    @classmethod
    def from_yaml(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            raise ValueError(
                "a judge node is a mapping: {all: [...]}, {any: [...]}, {not: ...} or {CHECK: ARGS}"
            )
        if "op" in data:
            return data
        body = {k: v for k, v in data.items() if k != "weight"}
        weight = data.get("weight", 1.0)
        if len(body) != 1:
            raise ValueError("a judge node has exactly one key besides `weight`")
        key, value = next(iter(body.items()))
        if key in ("all", "any"):
            if not isinstance(value, list) or not value:
                raise ValueError(f"`{key}` takes a non-empty list of judge nodes")
            return {"op": key, "children": value, "weight": weight}
        if key == "not":
            return {"op": "not", "children": [value], "weight": weight}
        if "." not in str(key):
            raise ValueError(f"check name {key!r} must be APP.NAME, e.g. settings.equals")
        if value is not None and not isinstance(value, dict):
            raise ValueError(f"arguments of {key} must be a mapping")
        known = (info.context or {}).get("checks")
        if known is not None:
            problem = known(str(key), value or {})
            if problem:
                raise ValueError(problem)
        return {"op": "check", "check": key, "args": value or {}, "weight": weight}

    def leaves(self) -> list[JudgeNode]:
        """All check nodes under this one."""
        if self.op == "check":
            return [self]
        return [leaf for child in self.children for leaf in child.leaves()]


class NearMiss(BaseModel):
    """A plausible wrong solution the judge must reject: changed params and/or other oracle steps."""

    model_config = ConfigDict(extra="forbid")
    replace: dict[str, str] = Field(default_factory=dict)
    oracle: list[OracleStep] | None = None


class OnScreen(BaseModel):
    """Where a query's integer answer shows on screen, for the screen reader (`tasks check`'s
    from_screen): `count` the rows matching a selector, or read the `number` one element prints.
    Selector keys are in mgfarm/tasks/screen_reader.py."""

    model_config = ConfigDict(extra="forbid")
    count: dict[str, Any] | None = None
    number: dict[str, Any] | None = None
    times: list[int] | None = None  # `number`: its regex's groups times these (minutes, seconds: [60, 1])

    @model_validator(mode="after")
    def one_way(self) -> OnScreen:
        if (self.count is None) == (self.number is None):
            raise ValueError("give `count: SELECTOR` or `number: SELECTOR`, one of them")
        return self


class Variant(BaseModel):
    """Another way to play a task for `tasks check`: an adversary (must be rejected) or an
    alternative correct path (must be accepted).

    `oracle` replaces the template's oracle steps (`[]`: no screen actions), `replace` changes
    parameters for those steps only, `after` runs setup steps over ADB once the agent is done.
    """

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    oracle: list[OracleStep] | None = None
    replace: dict[str, str] = Field(default_factory=dict)
    after: list[SetupStep] = Field(default_factory=list)


class TaskTemplate(BaseModel):
    """One parameterised, verifiable task as written in the catalog."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9_]+\.[a-z0-9_]+$")
    apps: list[str] = Field(min_length=1)
    goal: str = Field(min_length=1)
    difficulty: Difficulty
    split: Split = "test"
    feasible: bool = True  # false: the goal cannot be done; the agent must say so and change nothing
    suites: list[str] = Field(default_factory=list)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    setup: list[SetupStep] = Field(default_factory=list)
    judge: JudgeNode | None = None
    outcome: list[OutcomeItem] = Field(default_factory=list)
    incidental: list[IncidentalPattern] = Field(default_factory=list)
    answer: dict[str, AnswerType] = Field(default_factory=dict)
    on_screen: OnScreen | None = None  # how the screen reader finds a count (queries)
    max_steps: int | None = Field(default=None, ge=1)
    oracle: list[OracleStep] = Field(min_length=1)
    near_miss: NearMiss | None = None
    adversaries: list[Variant] = Field(default_factory=list)
    alternatives: list[Variant] = Field(default_factory=list)
    source: str = ""  # file:line, filled by the loader

    @model_validator(mode="after")
    def has_verdict(self) -> TaskTemplate:
        if not self.feasible:
            if self.outcome or self.answer:
                raise ValueError("an infeasible goal (`feasible: false`) changes nothing and answers nothing")
            if self.oracle[-1] != {"status": "infeasible"}:
                raise ValueError("the oracle of an infeasible goal ends with `status: infeasible`")
            return self
        if not self.outcome and not self.answer:
            raise ValueError("declare `outcome:` (what must change) or `answer:` (what a query task asks)")
        if self.answer and self.judge is None:
            raise ValueError("a query task (`answer:`) needs a `judge:` with answer.equals")
        return self

    @property
    def app(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def kind(self) -> str:
        """query (a typed answer, nothing may change), infeasible (say so, change nothing) or operate."""
        return "query" if self.answer else "operate" if self.feasible else "infeasible"

    @property
    def phrasings(self) -> int:
        """How many wordings the goal has: the options of a `choice` parameter that is the whole goal."""
        whole = re.fullmatch(r"\{(\w+)\}", self.goal.strip())
        spec = self.params.get(whole.group(1)) if whole else None
        return len(spec["choice"]) if spec and isinstance(spec.get("choice"), list) else 1

    @property
    def budget(self) -> int:
        return self.max_steps or DEFAULT_BUDGET[self.difficulty]

    def in_suite(self, suite: str) -> bool:
        """Suites: all, train, test (the split), or a named suite such as smoke."""
        return suite == "all" or suite == self.split or suite in self.suites

    def instantiate(self, seed: int) -> TaskInstance:
        """Draw the parameters for `seed` and fill the goal."""
        if seed < 0:
            raise MgfarmError(f"Seed {seed} is negative; use a whole number from 0 up.")
        try:
            values = params_mod.draw(self.params, self.id, seed)
            goal = str(params_mod.fill(self.goal, values))
        except MgfarmError as exc:  # name the template: the problem is in its YAML
            raise MgfarmError(f"{self.source or self.id}: {exc}") from exc
        return TaskInstance(
            task=self,
            seed=seed,
            params=values,
            goal=goal,
            max_steps=self.budget,
            answer_fields=dict(self.answer),
        )


class TaskInstance(BaseModel):
    """A template with its parameters drawn for one seed."""

    task: TaskTemplate
    seed: int
    params: dict[str, Any]
    goal: str
    max_steps: int
    answer_fields: dict[str, AnswerType]

    def render(self, value: Any) -> Any:
        """Fill this instance's parameters into a step, check argument or selector."""
        return params_mod.render(value, self.params)


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(template)"


def yaml_loc(lines: LineMap, base: Loc, loc: tuple[Any, ...]) -> Loc:
    """Map a pydantic error location back to the YAML keys (judge `children` were all/any/not)."""
    out: list[Any] = list(base)
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "children":
            index = parts[i + 1] if i + 1 < len(parts) else 0
            for key in ("all", "any"):
                if (*out, key, index) in lines.lines:
                    out += [key, index]
                    break
            else:
                out.append("not")
            i += 2
            continue
        out.append(part)
        i += 1
    return tuple(out)


def describe_error(path: Path, lines: LineMap, base: Loc, exc: ValidationError) -> str:
    """The first validation error as `file:line: field: message`."""
    first = exc.errors()[0]
    loc = tuple(p for p in first["loc"] if not str(p).startswith("function-"))
    full = yaml_loc(lines, base, loc)
    line = lines.line_of(full)
    loc = full[len(base) :]
    message = first["msg"].removeprefix("Value error, ")
    return f"{path}:{line}: field {_field_path(loc)}: {message}"


def parse_templates(path: Path, checks: Any = None) -> list[TaskTemplate]:
    """Load every template of one catalog file; the first error names file, line and field.

    `checks(name, args) -> problem | None` validates check names and arguments when given.
    """
    data, lines = load_with_lines(path)
    if data is None:
        return []
    if not isinstance(data, list):
        raise MgfarmError(f"{path}:1: a task file is a YAML list of templates; start each with `- id: ...`.")
    templates = []
    for index, raw in enumerate(data):
        if not isinstance(raw, dict):
            raise MgfarmError(f"{path}:{lines.line_of((index,))}: each template is a mapping with an `id`.")
        try:
            template = TaskTemplate.model_validate(raw, context={"checks": checks})
        except ValidationError as exc:
            raise MgfarmError(describe_error(path, lines, (index,), exc) + "; fix that field.") from exc
        template.source = f"{path}:{lines.line_of((index,))}"
        templates.append(template)
    return templates
