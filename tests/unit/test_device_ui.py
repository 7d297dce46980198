"""UI hierarchy parsing: the elements are those of the document's XML parse, whatever its values hold."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.device import ui
from mgfarm.device.ui import parse_hierarchy
from mgfarm.errors import MgfarmError

PROLOG = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


def node(text: str, bounds: str = "[0,0][100,50]", close: str = "/>", quote: str = '"') -> str:
    value = quoteattr(text) if quote == '"' else "'" + text.replace("&", "&amp;").replace("'", "&apos;") + "'"
    return f'<node index="0" text={value} clickable="true" bounds="{bounds}"{close}'


def doc(*nodes: str, prolog: str = PROLOG) -> str:
    return f'{prolog}<hierarchy rotation="0">{"".join(nodes)}</hierarchy>'


def texts(xml: str) -> list[str]:
    ui._parse_cached.cache_clear()
    return [e.text for e in parse_hierarchy(xml)]


def test_values_are_read_as_xml_reads_them() -> None:
    xml = doc(
        node("a > b"),  # '>' in a value: legal, and not the end of the tag
        node('it\'s "quoted" & <escaped>'),
        node("single > 'quoted'", quote="'"),
        '<node text="line&#10;break" clickable="true" bounds="[0,0][1,1]"/>',
        '<node text="raw\nnewline\ttab" clickable="true" bounds="[0,0][1,1]"/>',  # normalised to spaces
        node("nested", close="><node text='inner' clickable='true' bounds='[0,0][1,1]'></node></node>"),
    )
    assert texts(xml) == [
        "a > b",
        'it\'s "quoted" & <escaped>',
        "single > 'quoted'",
        "line\nbreak",
        "raw newline tab",
        "nested",
        "inner",
    ]
    assert [e.index for e in parse_hierarchy(xml)] == list(range(7))


def test_markup_that_only_looks_like_a_node_gives_no_element() -> None:
    assert texts(
        doc("<!-- <node text='comment' clickable='true' bounds='[0,0][1,1]'/> -->", node("real"))
    ) == ["real"]
    assert texts(doc("<x><![CDATA[<node text='cdata' clickable='true'>]]></x>", node("real"))) == ["real"]
    assert texts(doc(node("other tag").replace("<node", "<nodes"), node("real"))) == ["real"]


def test_a_document_in_another_encoding_is_read_in_it() -> None:
    latin = "<?xml version='1.0' encoding='ISO-8859-1'?>"
    assert texts(doc(node("café"), prolog=latin)) == ["cafÃ©"]  # its UTF-8 bytes read as Latin-1


def test_an_unreadable_hierarchy_raises() -> None:
    made_up = doc(node("a"), prolog="<?xml version='1.0' encoding='utf-f'?>")  # no such encoding
    for broken in (
        doc(node("a"))[:-5],
        doc(node("a")).replace("/>", ">", 1),
        "",
        "<hierarchy><node",
        made_up,
    ):
        ui._parse_cached.cache_clear()
        with pytest.raises(MgfarmError, match="unreadable UI hierarchy"):
            parse_hierarchy(broken)


def test_screens_sharing_nodes_keep_their_own_indices() -> None:
    first = parse_hierarchy(doc(node("a"), node("b")))
    second = parse_hierarchy(doc(node("new"), node("a"), node("b")))
    assert [(e.index, e.text) for e in first] == [(0, "a"), (1, "b")]
    assert [(e.index, e.text) for e in second] == [(0, "new"), (1, "a"), (2, "b")]


VALUE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


@given(st.lists(st.tuples(VALUE, st.sampled_from(['"', "'"]), st.booleans()), max_size=6))
def test_parse_equals_the_tree_walk(values: list[tuple[str, str, bool]]) -> None:
    nodes = [
        node(text, bounds="[0,0][5,5]" if shown else "[0,0][0,0]", quote=quote)
        for text, quote, shown in values
    ]
    xml = doc(*nodes)
    try:
        expected = ui._parse_tree(xml.encode("utf-8"))
    except MgfarmError:  # characters XML 1.0 does not allow: both refuse
        with pytest.raises(MgfarmError):
            texts(xml)
        return
    ui._parse_cached.cache_clear()
    assert parse_hierarchy(xml) == expected
