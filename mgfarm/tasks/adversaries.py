"""The adversary matrix of `mgfarm tasks check`: ways to play a template that must be rejected, and
alternative correct paths that must be accepted.

Derived from the template wherever possible: doing nothing; the oracle twice; the oracle plus
collateral damage in every database its apps own, in settings and in shared storage (done over
ADB after the oracle); over-broad (the oracle and the near-miss); wrong-then-right (the
near-miss, then the oracle); a near miss for every parameter of the goal; and for query tasks
constant answers, every candidate at once and the goal's own text. Templates add hand-written
ones under `adversaries:` and other correct paths under `alternatives:`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mgfarm.tasks import answers
from mgfarm.tasks.agents import (
    GIVE_UP,
    NothingAgent,
    ScriptedAgent,
    SequenceAgent,
    oracle_agent,
    variant_agent,
)
from mgfarm.tasks.device import TaskDevice, quote
from mgfarm.tasks.params import PLACEHOLDER, draw, fill
from mgfarm.tasks.schema import OnScreen, TaskInstance, TaskTemplate, Variant
from mgfarm.tasks.screen_reader import ScreenReaderAgent
from mgfarm.tasks.state import StateSnapshot, StateSpec, capture, read_files, shared_path
from mgfarm.tasks.steps import apply_steps

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

AgentFactory = Callable[[TaskInstance], Any]
Tamper = Callable[[Any, TaskInstance, StateSnapshot], bool]
# Settings an agent could flip by accident, and a value to flip each to.
SETTING_FLIPS = (
    ("global", "bluetooth_on", {"0": "1", "1": "0"}),
    ("global", "wifi_on", {"0": "1", "1": "0"}),
    ("secure", "ui_night_mode", {"1": "2", "2": "1"}),
    ("system", "time_12_24", {"12": "24", "24": "12"}),
)
CONSTANTS = {
    "integer": ["0", "1", "2", "3"],
    "number": ["0", "10"],
    "time": ["12:00", "09:00"],
    "date": ["2026-03-04"],
    "boolean": ["yes", "no"],
    "text": ["yes", "I don't know"],
    "money": ["0", "$10.00"],
    "phone": ["5555555555"],
}
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NEAR_MISS_DRAWS = 40  # other seeds tried to find a different value for one parameter


@dataclass(frozen=True)
class Adversary:
    """One way to play a template: name, matrix column, what the verdict must be, how."""

    name: str
    group: str
    expect: str  # accept | reject
    agent: AgentFactory
    budget: float = 1.0  # times the template's step budget (sequences play the oracle twice)
    after: Tamper | None = None


def adversaries(template: TaskTemplate, seed: int, catalog: Catalog) -> list[Adversary]:
    """Every adversary and alternative for one template and seed (names are stable across seeds).

    The damage targets the databases `catalog` declares for the template's apps.
    """
    out = [Adversary("oracle", "oracle", "accept", oracle_agent)]
    out += [_variant(catalog, v, "alternative", "accept") for v in template.alternatives]
    out.append(Adversary("nothing", "nothing", "reject", lambda i: NothingAgent()))
    if not template.feasible:  # the right play is to look, say so and change nothing
        return out + _infeasible_adversaries(template, catalog)
    query = bool(template.answer)
    kinds = {next(iter(item)) for item in template.outcome}
    # A stamped file (a glob path: IMG_*.jpg) made twice is two files; an update, delete, toggle or
    # new folder twice is the same as once, or fails.
    if "insert" in kinds or any(_stamped_file(item) for item in template.outcome):
        out.append(
            Adversary(
                "oracle_twice", "twice", "reject", lambda i: _seq(oracle_agent(i), oracle_agent(i)), 2.5
            )
        )
    if template.near_miss is not None:
        miss = template.near_miss
        near_miss = Variant(name="near_miss", oracle=miss.oracle, replace=miss.replace)
        out.append(_variant(catalog, near_miss, "near_miss"))
        if not query:

            def near(i: TaskInstance) -> ScriptedAgent:
                return variant_agent(i, miss.oracle, miss.replace)

            out.append(
                Adversary("over_broad", "over_broad", "reject", lambda i: _seq(oracle_agent(i), near(i)), 2.5)
            )
            # A wrong value that the right one overwrites is a corrected mistake, not a wrong state.
            if not (kinds == {"update"} and miss.oracle is None):
                out.append(
                    Adversary(
                        "wrong_then_right",
                        "wrong_right",
                        "reject",
                        lambda i: _seq(near(i), oracle_agent(i)),
                        2.5,
                    )
                )
    out += _parameter_misses(template, seed)
    out += [_variant(catalog, v, "custom") for v in template.adversaries]
    out += _collateral(template, catalog.state)
    if query:
        out += _answer_adversaries(template, seed)
        field, kind = next(iter(template.answer.items()))
        said = _answerer(field, _rephrased(template, kind), wrong=False)
        out.append(Adversary("other_words", "alternative", "accept", said))
        reader = _screen_reader(field, kind, template.on_screen)
        out.append(Adversary("from_screen", "alternative", "accept", reader, 2.0))  # scrolls up and down
    return out


def _infeasible_adversaries(template: TaskTemplate, catalog: Catalog) -> list[Adversary]:
    """An infeasible goal: the oracle's look around then "done" instead of "impossible", the template's
    own wrong attempts, and the oracle's honest answer with damage done on the side."""
    claims_done = [*template.oracle[:-1], {"status": "complete"}]

    def claimer(i: TaskInstance) -> ScriptedAgent:
        return ScriptedAgent(claims_done, i)

    out = [Adversary("claims_done", "claims_done", "reject", claimer)]
    out += [_variant(catalog, v, "custom") for v in template.adversaries]
    return out + _collateral(template, catalog.state)


def _stamped_file(item: dict[str, Any]) -> bool:
    """A `file` outcome item that creates a file named by a glob (each run makes another one)."""
    body = item.get("file")
    return isinstance(body, dict) and bool(body.get("exists")) and any(c in str(body["path"]) for c in "*?[")


def _seq(*parts: Any) -> SequenceAgent:
    return SequenceAgent(list(parts))


def _variant(catalog: Catalog, v: Variant, group: str, expect: str = "reject") -> Adversary:
    def agent(i: TaskInstance) -> ScriptedAgent:
        return variant_agent(i, v.oracle, v.replace)

    after = None
    if v.after:

        def run_after(device: Any, instance: TaskInstance, _: StateSnapshot) -> bool:
            params = {**instance.params, **{k: instance.render(x) for k, x in v.replace.items()}}
            apply_steps(device, v.after, catalog, params)
            return True

        after = run_after
    return Adversary(v.name, group, expect, agent, 1.0, after)


# ---- a near miss for every parameter of the goal


def goal_parameters(template: TaskTemplate) -> list[str]:
    """Parameters the goal names, followed through `format` parameters and phrasings (a `choice` of
    texts) down to the ones drawn on their own, and the answer's."""
    texts = [template.goal]
    texts += [str(step["answer"]) for step in template.oracle if isinstance(step, dict) and "answer" in step]
    names: list[str] = []
    for text in texts:
        for m in PLACEHOLDER.finditer(text):
            names += [n for n in _drawn_names(template, m.group(1).split(".")[0], set()) if n not in names]
    return names


def _drawn_names(template: TaskTemplate, name: str, seen: set[str]) -> list[str]:
    """`name` itself, or for a built parameter the parameters its text names (recursively)."""
    spec = template.params.get(name, {})
    texts: list[str] = []
    if "format" in spec:
        texts = [str(spec["format"])]
    elif "choice" in spec and all(isinstance(o, str) for o in spec["choice"]):
        texts = list(spec["choice"])  # phrasings picked by seed: what they name is the goal's
    inner = [p.group(1).split(".")[0] for t in texts for p in PLACEHOLDER.finditer(t)]
    if not inner or name in seen:
        return [name]
    out: list[str] = []
    for n in dict.fromkeys(inner):
        out += [x for x in _drawn_names(template, n, seen | {name}) if x not in out]
    return out


def _parameter_misses(template: TaskTemplate, seed: int) -> list[Adversary]:
    out = []
    for name in goal_parameters(template):
        out.append(Adversary(f"miss_{name}", "param_miss", "reject", _misser(template, seed, name)))
    return out


def other_value(template: TaskTemplate, seed: int, name: str, current: Any) -> Any | None:
    """A value `name` takes for another seed, different from `current` (None: it never varies)."""
    for k in range(1, NEAR_MISS_DRAWS + 1):
        value = draw(template.params, template.id, seed + 7919 * k)[name]
        if value != current:
            return value
    return None


def _misser(template: TaskTemplate, seed: int, name: str) -> AgentFactory:
    def agent(instance: TaskInstance) -> Any:
        value = other_value(template, seed, name, instance.params[name])
        if value is None:
            return _Unplayable()
        params = {**instance.params, name: value}
        for pname, spec in template.params.items():  # formats built on the changed value follow it
            if "format" in spec:
                params[pname] = fill(str(spec["format"]), params)
        changed = instance.model_copy(update={"params": params})
        if changed.render(template.oracle) == instance.render(template.oracle):
            return _Unplayable()  # the parameter does not change what the agent does
        said = [s for s in template.oracle if isinstance(s, dict) and "answer" in s]
        if said and changed.render(said) == instance.render(said):
            # A query's miss that still says the right answer would read it from hidden parameters,
            # not from the wrong screen it went to: it proves nothing about the judge.
            return _Unplayable()
        return ScriptedAgent(template.oracle, changed)

    return agent


class _Unplayable:
    """Gives up at once: the adversary does not apply to this instance (shown as n/a)."""

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        return GIVE_UP


# ---- collateral damage after the oracle


def _collateral(template: TaskTemplate, spec: StateSpec) -> list[Adversary]:
    out = []
    for decl in spec.databases.values():
        if decl.app not in template.apps or not decl.main:
            continue
        out.append(_damage(f"delete_{decl.name}", _delete_row(spec, decl.name)))
        out.append(_damage(f"edit_{decl.name}", _edit_row(spec, decl.name)))
        out.append(_damage(f"insert_{decl.name}", _copy_row(spec, decl.name)))
        if not any(a.name.startswith("damage_costly_") for a in out):  # one database is proof enough
            out.append(_damage(f"costly_{decl.name}", _costly_column(spec, decl.name)))
            out.append(_damage(f"garbage_{decl.name}", _garbage(spec, decl.name)))
    for prefs in spec.prefs.values():
        if prefs.app in template.apps:
            out.append(_damage(f"pref_{prefs.name}", _add_pref(spec, prefs.name)))
    out.append(_damage("setting", _flip_setting(template)))
    if "local_time" in str(template.outcome):  # times judged in the zone: moving the zone is a change
        out.append(_damage("timezone", _move_zone))
    if "files" in template.apps or any("file" in item for item in template.outcome):
        out.append(_damage("file_add", _add_file))
        out.append(_damage("file_delete", _delete_file))
        out.append(_damage("file_overwrite", _overwrite_file))
    return out


def _damage(name: str, tamper: Tamper) -> Adversary:
    """The oracle, then the damage over ADB."""
    return Adversary(f"damage_{name}", "collateral", "reject", oracle_agent, 1.0, tamper)


def _records(spec: StateSpec, db: str) -> str:
    """The snapshot table holding a database's main records (its entity when one covers them)."""
    decl = spec.databases[db]
    for entity in spec.entities.values():
        if entity.db == db and decl.main in entity.covers:
            return entity.name
    return f"{db}.{decl.main}"


def untouched_key(device: TaskDevice, spec: StateSpec, db: str, baseline: StateSnapshot) -> str | None:
    """A record that was there at the start and is unchanged now: fair game for damage."""
    table = _records(spec, db)
    before, now = baseline.table(table), capture(device, spec).table(table)
    keys = [k for k in before if k in now and now[k] == before[k] and k.isdigit()]
    return keys[0] if keys else None


def _sql(device: TaskDevice, spec: StateSpec, db: str, statement: str) -> None:
    device.shell(f"sqlite3 {quote(spec.database(db, 'An adversary', device.profile))} {quote(statement)}")


def _delete_row(spec: StateSpec, db: str) -> Tamper:
    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        key = untouched_key(device, spec, db, baseline)
        if key is None:
            return False
        decl = spec.databases[db]
        _sql(device, spec, db, f"DELETE FROM {decl.main} WHERE {decl.key} = {key}")
        return True

    return run


def _edit_row(spec: StateSpec, db: str) -> Tamper:
    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        key = untouched_key(device, spec, db, baseline)
        decl = spec.databases[db]
        if key is None or not decl.edit:
            return False
        _sql(device, spec, db, f"UPDATE {decl.main} SET {decl.edit} WHERE {decl.key} = {key}")
        return True

    return run


def _copy_row(spec: StateSpec, db: str) -> Tamper:
    """An extra record (another SMS, call, alarm, contact, ...): a copy of an untouched one."""

    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        key = untouched_key(device, spec, db, baseline)
        decl = spec.databases[db]
        if key is None:  # nothing to copy: the app's own kind of extra record
            if decl.extra:
                _sql(device, spec, db, decl.extra)
            return bool(decl.extra)
        query = f"SELECT name FROM pragma_table_info('{decl.main}')"
        path = spec.database(db, "An adversary", device.profile)
        columns = device.shell(f"sqlite3 {quote(path)} {quote(query)}").split()
        # Quoted: apps name columns after SQL keywords (Joplin's and Tasks' `order`).
        cols = ", ".join(f'"{c}"' for c in columns if c != decl.key and re.fullmatch(r"\w+", c))
        table = decl.main
        _sql(
            device,
            spec,
            db,
            f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {table} WHERE {decl.key} = {key}",
        )
        return True

    return run


def _costly_column(spec: StateSpec, db: str) -> Tamper:
    """A column computed on every read of the records (4 MB each): a judge that read it would spend
    the trainer's memory; it must take the database as unreadable, a change, and reject."""

    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        main = spec.databases[db].main
        _sql(device, spec, db, f"ALTER TABLE {main} ADD COLUMN mgfarm_costly AS (zeroblob(4000000)) VIRTUAL")
        return True

    return run


def _garbage(spec: StateSpec, db: str) -> Tamper:
    """The database file overwritten with text: the judge must reject, not fail or read no rows."""

    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        path = quote(spec.database(db, "An adversary", device.profile))
        device.shell(f"echo not-a-database > {path}; rm -f {path}-wal")
        return True

    return run


def _add_pref(spec: StateSpec, name: str) -> Tamper:
    """A preference of the app's own that the task never asked for: a change the judge must see."""

    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        path = quote(spec.path_on(spec.prefs[name].path, device.profile))
        entry = '<string name="mgfarm_adversary">1</string>'
        return "added" in device.shell(
            f"[ -e {path} ] && sed -i 's#</map>#{entry}</map>#' {path} && echo added"
        )

    return run


def _flip_setting(template: TaskTemplate) -> Tamper:
    named = str(template.outcome) + str(template.incidental)

    def run(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
        for ns, key, flips in SETTING_FLIPS:
            if key in named:
                continue
            now = device.shell(f"settings get {ns} {key}").strip()
            device.shell(f"settings put {ns} {key} {flips.get(now, '1')}")
            return True
        return False

    return run


def _move_zone(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
    zone = "Pacific/Kiritimati" if baseline.timezone != "Pacific/Kiritimati" else "UTC"
    device.shell(f"setprop persist.sys.timezone {zone}")
    return True


def _add_file(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
    device.push(b"left behind\n", "/sdcard/Download/collateral.txt")
    return True


def _untouched_files(device: Any, baseline: StateSnapshot) -> list[str]:
    """Files in shared storage the oracle left as they were, largest first."""
    now = read_files(device)
    before = baseline.table("files")
    files = [p for p, row in before.items() if row.get("type") == "file" and now.get(p) == row]
    return sorted(files, key=lambda p: -(before[p]["size"] or 0))


def _delete_file(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
    files = _untouched_files(device, baseline)
    if not files:
        return False
    device.shell(f"rm {quote(shared_path(files[0]))}")
    return True


ROTATED = bytes(range(1, 256)) + b"\0"  # every byte another


def _overwrite_file(device: Any, instance: TaskInstance, baseline: StateSnapshot) -> bool:
    """Other bytes of the same size in the largest untouched file (one too large to hash, if any)."""
    files = _untouched_files(device, baseline)
    if not files:
        return False
    data = device.pull(files[0])
    device.push(data.translate(ROTATED), files[0])
    return True


# ---- query tasks: answers that must not pay


def _answer_adversaries(template: TaskTemplate, seed: int) -> list[Adversary]:
    out = []
    field, kind = next(iter(template.answer.items()))
    for i, constant in enumerate(CONSTANTS.get(kind, CONSTANTS["text"])):
        out.append(Adversary(f"constant_{i}", "answers", "reject", _answerer(field, _constant(constant))))
    out.append(Adversary("all_candidates", "answers", "reject", _answerer(field, _all_candidates(template))))
    out.append(Adversary("goal_text", "answers", "reject", _answerer(field, lambda inst: inst.goal)))
    return out


def rephrase(kind: str, value: str) -> str:
    """The right answer said the way a person might: 'three', 'At 9:30 AM', '45 dollars and 25 cents'."""
    if kind == "integer" and value.isdigit() and int(value) < len(NUMBER_WORDS):
        return f"There are {NUMBER_WORDS[int(value)]}."
    if kind == "time" and re.fullmatch(r"\d\d:\d\d", value):
        hour, minute = int(value[:2]), value[3:]
        return f"At {hour % 12 or 12}:{minute} {'AM' if hour < 12 else 'PM'}"
    if kind == "money" and re.fullmatch(r"\d+\.\d\d", value):
        dollars, cents = value.split(".")
        return f"{dollars} dollars and {int(cents)} cents"
    if kind == "phone" and len(value) == 10 and value.isdigit():
        return f"({value[:3]}) {value[3:6]}-{value[6:]}"
    return f'It says "{value}".'


def _rephrased(template: TaskTemplate, kind: str) -> Callable[[TaskInstance], str]:
    def text(instance: TaskInstance) -> str:
        found = expected_answer(template)
        return rephrase(kind, str(instance.render(found[1]))) if found else ""

    return text


def _screen_reader(field: str, kind: str, hint: OnScreen | None) -> AgentFactory:
    """The answer read off the screens (the template's `on_screen` hint says how for counts)."""

    def agent(instance: TaskInstance) -> ScreenReaderAgent:
        found = expected_answer(instance.task)
        right = instance.render(found[1]) if found else None
        how = hint.model_dump(exclude_none=True) if hint else None
        return ScreenReaderAgent(instance, field, lambda text: answers.matches(kind, text, right), how)

    return agent


def _constant(value: str) -> Callable[[TaskInstance], str]:
    return lambda instance: value


def expected_answer(template: TaskTemplate) -> tuple[str, str] | None:
    """(field, value template) of the answer.equals check in the judge."""
    if template.judge is None:
        return None
    for leaf in template.judge.leaves():
        if leaf.check == "answer.equals":
            return str(leaf.args["field"]), str(leaf.args["value"])
    return None


def _all_candidates(template: TaskTemplate) -> Callable[[TaskInstance], str]:
    """The right value and its distractors (parameters drawn to differ from it), all in one answer."""

    def text(instance: TaskInstance) -> str:
        found = expected_answer(template)
        if found is None:
            return ""
        right = str(instance.render(found[1]))
        heads = {m.group(1) for m in PLACEHOLDER.finditer(found[1])}
        others = []
        for name, spec in template.params.items():
            avoid = spec.get("differ_from", [])
            avoid = [avoid] if isinstance(avoid, str) else list(avoid)
            if heads & set(avoid) and str(instance.params[name]) != right:
                others.append(str(instance.params[name]))
        if not others:
            return ""
        return ", ".join([*others, right])

    return text


def _answerer(field: str, value: Callable[[TaskInstance], str], wrong: bool = True) -> AgentFactory:
    """An agent that answers at once; a `wrong` answer that happens to be right is n/a."""

    def agent(instance: TaskInstance) -> Any:
        text = value(instance)
        found = expected_answer(instance.task)
        kind = instance.answer_fields.get(field, "text")
        if not text or (wrong and found and answers.matches(kind, text, instance.render(found[1]))):
            return _Unplayable()  # a constant that happens to be right is a right answer
        return ScriptedAgent([{"answer": {field: text}}], instance)

    return agent
