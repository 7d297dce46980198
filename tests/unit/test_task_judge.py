"""Judge checks: all/any/not, weights -> progress, typed answers (outcomes: test_outcome.py)."""

from __future__ import annotations

from typing import Any

from mgfarm.catalog import load_catalog
from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, evaluate
from mgfarm.tasks.runtime import answer_sheet
from mgfarm.tasks.schema import JudgeNode


def answer_node(field: str, value: Any, weight: float = 1.0, tolerance: float = 0.0) -> dict[str, Any]:
    args = {"field": field, "value": value, "tolerance": tolerance}
    return {"answer.equals": args, "weight": weight}


def run(
    tree: dict[str, Any], answer: dict[str, Any], fields: dict[str, str]
) -> tuple[bool, float, list[Any]]:
    node = JudgeNode.model_validate(tree)
    ctx = CheckContext(device=None, answer=answer, params={}, answer_fields=fields)  # type: ignore[arg-type]
    out: list[Any] = []
    ok, progress = evaluate(load_catalog([]).checks, node, ctx, lambda v: v, out)
    return ok, progress, out


FIELDS = {"count": "integer", "day": "date", "name": "text", "total": "number"}


def test_all_with_weights_gives_partial_progress() -> None:
    tree = {"all": [answer_node("count", 3, weight=3), answer_node("name", "Ada Lovelace")]}
    ok, progress, out = run(tree, {"count": "3 events", "name": "wrong"}, FIELDS)
    assert not ok and progress == 0.75
    assert [o.ok for o in out] == [True, False]
    assert "'wrong'" in out[1].detail  # the detail says what the answer was read as


def test_any_and_not() -> None:
    tree = {"any": [answer_node("count", 9), answer_node("name", "ada lovelace.")]}
    assert run(tree, {"count": 3, "name": "  Ada   Lovelace "}, FIELDS)[:2] == (True, 1.0)
    assert run({"not": answer_node("count", 3)}, {"count": "3"}, FIELDS)[0] is False
    assert run({"not": answer_node("count", 4)}, {"count": "3"}, FIELDS)[0] is True


def test_typed_answers_are_normalised() -> None:
    assert run(answer_node("day", "2026-03-04"), {"day": "March 4th, 2026"}, FIELDS)[0]
    assert run(answer_node("total", 12.5, tolerance=0.01), {"total": "$12.50"}, FIELDS)[0]
    assert not run(answer_node("total", 12.5), {"total": "12.6"}, FIELDS)[0]
    assert not run(answer_node("count", 3), {}, FIELDS)[0]


def test_normalisers() -> None:
    assert normalize.same_number("+1 (555) 123-4567", "5551234567")
    assert not normalize.same_number("", "")
    assert normalize.time("9:05 pm") == "21:05" and normalize.time("09:05") == "09:05"
    assert normalize.boolean("Yes") is True and normalize.boolean("off") is False


def test_answers_are_read_by_meaning_and_hedges_fail() -> None:
    fields = {"count": "integer", "at": "time", "phone": "phone", "paid": "money"}
    assert run(answer_node("count", 3), {"count": "three"}, fields)[0]
    assert run(answer_node("at", "09:30"), {"at": "It starts at 9:30 AM."}, fields)[0]
    assert run(answer_node("paid", "45.25"), {"paid": "45 dollars and 25 cents"}, fields)[0]
    assert not run(answer_node("count", 3), {"count": "2 or 3"}, fields)[0]
    assert not run(answer_node("phone", "5551234567"), {"phone": "5559876543, 5551234567"}, fields)[0]
    assert run(answer_node("phone", "5551234567"), {"phone": "+1 (555) 123-4567"}, fields)[0]


def test_an_answer_of_any_shape_is_read_never_raised() -> None:
    """The answer is the policy's text: JSON nested past the decoder's depth (which raised
    RecursionError out of the judge, and the trainer's step with it) is read as plain text."""
    instance = load_catalog().get("expense.how_much_spent").instantiate(0)
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    assert answer_sheet(instance, deep) == {next(iter(instance.answer_fields)): deep}
    assert answer_sheet(instance, '{"total": "12.50"}') == {"total": "12.50"}
    assert answer_sheet(instance, "{not json") == {next(iter(instance.answer_fields)): "{not json"}
