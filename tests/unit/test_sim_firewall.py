"""`su` and `iptables` on a simulated device: the rules android_env's a11y wrapper adds, their listing,
their errors, and the verdict they give the device's own connections."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mgfarm.sim.shell.net_cmd import Usage, parse_rule
from mgfarm.sim.system.firewall import Rule, firewall, port_range
from tests.unit.shellkit import ShellDevice


def test_su_runs_the_command_as_who_with_its_user_name(sh: ShellDevice) -> None:
    assert sh.run("su 0 printenv USER LOGNAME").text == "root\nroot\n"
    assert sh.run("su shell printenv USER").text == "shell\n"
    assert sh.run("su 0 sh -c 'echo $PATH'").text.startswith("/product/bin:")
    bad = sh.run("su nobody true")
    assert (bad.status, bad.error) == (1, "su: unknown user nobody\n")


def test_the_wrappers_rules_keep_only_its_own_connection(sh: ShellDevice) -> None:
    assert sh.run("su 0 iptables -A OUTPUT -p tcp -d 10.0.2.2 --dport 8554 -j ACCEPT").status == 0
    assert sh.run("su 0 iptables -A OUTPUT -j DROP").status == 0
    assert sh.run("iptables -S OUTPUT").text == (
        "-P OUTPUT ACCEPT\n-A OUTPUT -d 10.0.2.2/32 -p tcp -m tcp --dport 8554 -j ACCEPT\n-A OUTPUT -j DROP\n"
    )
    wall = firewall(sh.device)
    assert wall.verdict("tcp", "10.0.2.2", 8554) == "ACCEPT"
    assert wall.verdict("tcp", "10.0.2.2", 8555) == "DROP"
    listing = sh.run("iptables -L OUTPUT -n").text.splitlines()
    assert listing[0] == "Chain OUTPUT (policy ACCEPT)"
    assert listing[2].split() == ["ACCEPT", "tcp", "--", "0.0.0.0/0", "10.0.2.2", "tcp", "dpt:8554"]
    assert sh.run("iptables -D OUTPUT 2").status == 0
    assert wall.verdict("tcp", "10.0.2.2", 8555) == "ACCEPT"
    assert sh.run("iptables -D OUTPUT -p tcp -d 10.0.2.2 --dport 8554 -j ACCEPT").status == 0
    assert sh.run("iptables -P OUTPUT DROP").status == 0
    assert wall.verdict("tcp", "10.0.2.2", 8554) == "DROP"
    assert sh.run("iptables -A OUTPUT -d 0.0.0.0/0 -j LOG").status == 0  # any address: not listed
    assert sh.run("iptables -S OUTPUT").text.endswith("\n-A OUTPUT -j LOG\n")
    assert sh.run("iptables -F").status == 0 and sh.run("iptables -P OUTPUT ACCEPT").status == 0
    assert sh.run("iptables -w -S").text == "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n"


@pytest.mark.parametrize(
    ("line", "status", "error"),
    [
        ("iptables", 2, "iptables v1.8.7 (legacy): no command specified\n"),
        ("iptables -A OUTPUT --dport 1 -j DROP", 2, 'iptables v1.8.7 (legacy): unknown option "--dport"\n'),
        ("iptables -A NOPE -j DROP", 1, "iptables: No chain/target/match by that name.\n"),
        ("iptables -A OUTPUT -j NOPE", 2, "iptables v1.8.7 (legacy): Couldn't load target `NOPE'"),
        (
            "iptables -D OUTPUT -j DROP",
            1,
            "iptables: Bad rule (does a matching rule exist in that chain?).\n",
        ),
        ("iptables -A OUTPUT -p tcp --dport 9:1 -j DROP", 2, "iptables v1.8.7 (legacy): invalid portrange"),
        (
            "iptables -A OUTPUT -d 10.0.2.300 -j DROP",
            2,
            "iptables v1.8.7 (legacy): host/network `10.0.2.300'",
        ),
        ("iptables -t nope -S", 3, "iptables v1.8.7 (legacy): can't initialize iptables table `nope'"),
        (
            "su 2000 iptables -S",
            3,
            "iptables v1.8.7 (legacy): can't initialize iptables table `filter': Perm",
        ),
    ],
)
def test_iptables_refuses_what_iptables_refuses(sh: ShellDevice, line: str, status: int, error: str) -> None:
    got = sh.run(line)
    assert got.status == status and got.error.startswith(error), got.error
    assert firewall(sh.device).chains["filter"]["OUTPUT"] == []


def test_without_root_only_su_0_may_change_the_rules(sh: ShellDevice) -> None:
    sh.device.root_adbd = False
    assert sh.run("iptables -A OUTPUT -j DROP").status == 3
    assert sh.run("su 0 iptables -A OUTPUT -j DROP").status == 0
    assert firewall(sh.device).verdict("tcp", "10.0.2.2", 1) == "DROP"


PORTS = st.integers(0, 65535)
RANGE = st.none() | st.tuples(PORTS, PORTS).map(lambda pair: (min(pair), max(pair)))
RULES = st.builds(
    Rule,
    target=st.sampled_from(["", "ACCEPT", "DROP", "REJECT", "RETURN", "LOG"]),
    protocol=st.sampled_from(["all", "tcp", "udp", "icmp"]),
    source=st.sampled_from(["", "10.0.2.2/32", "192.168.0.0/16"]),
    destination=st.sampled_from(["", "10.0.2.2/32", "10.0.0.0/8"]),
    in_interface=st.sampled_from(["", "eth0"]),
    out_interface=st.sampled_from(["", "wlan0"]),
).flatmap(
    lambda r: st.builds(
        lambda sport, dport: Rule(**{**r.__dict__, "sport": sport, "dport": dport}),
        RANGE if r.protocol in ("tcp", "udp") else st.none(),
        RANGE if r.protocol in ("tcp", "udp") else st.none(),
    )
)


@given(RULES)
def test_a_rule_reads_back_from_its_listing(rule: Rule) -> None:
    words = rule.spec("OUTPUT").split()
    assert words[:2] == ["-A", "OUTPUT"]
    assert parse_rule(words[2:]) == rule


@given(
    st.lists(st.sampled_from(["-p", "tcp", "-d", "10.0.2.2", "--dport", "80:", "-j", "DROP", "-m", "x", ""]))
)
def test_parse_rule_accepts_a_rule_or_says_why_not(args: list[str]) -> None:
    try:
        parse_rule(args)
    except Usage as exc:
        assert str(exc).startswith(("iptables v1.8.7 (legacy): ", "iptables: "))


@given(st.text(max_size=12))
def test_port_range_is_two_ordered_ports_or_an_error(value: str) -> None:
    try:
        low, high = port_range(value)
    except ValueError:
        return
    assert 0 <= low <= high <= 65535
