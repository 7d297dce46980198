# ruff: noqa: E501  (the cases are mksh's transcripts, one per line)
"""mksh R59c's shell language as the sim runs it: each script's status, stdout and stderr were
produced by a real mksh R59c binary (built from its source; toybox 0.8.6 for the external
commands), run as `mksh -c SCRIPT` with its name shown as /system/bin/sh. Plus fuzzing: scripts
built from random pieces always end with a status, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> ShellDevice:
    return ShellDevice(Path(tmp_path_factory.mktemp("mksh")), boot=False)


# (script, status, stdout, stderr) as mksh R59c gave them.
CASES = [
    (
        "echo a b  c; echo -n x; echo; echo -e 'a\\tb'; echo \"$((7/2)) $((7%3)) $((-7/2)) $((2**10)) $((1<<4)) $((0x10)) $((010)) $((5>3?1:0))\"",
        1,
        "a b c\nx\na\tb\n",
        "/system/bin/sh: 2**10: unexpected '*'\n",
    ),
    (
        "x=hello; echo ${#x} ${x%l*} ${x%%l*} ${x#*l} ${x##*l} ${x/l/L} ${x//l/L} ${x:1:3} ${x:-d} ${y:-d} ${y:=e} $y ${x:+set} ${z+set}",
        0,
        "5 hel he lo o heLlo heLLo ell hello d e e set\n",
        "",
    ),
    (
        'set -- a b c; echo $# $1 $@; shift; echo $# "$*"; shift 5; echo $?',
        1,
        "3 a a b c\n2 b c\n",
        "/system/bin/sh: shift: nothing to shift\n",
    ),
    (
        "f() { local v=1; echo in $1 $#; return 3; }; f x y; echo $?; echo ${v:-unset}",
        0,
        "in x 2\n3\nunset\n",
        "",
    ),
    ("for i in 1 2 3; do case $i in 1) echo one;; 2|3) echo many;; esac; done", 0, "one\nmany\nmany\n", ""),
    (
        "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i; until false; do break; done; echo done",
        0,
        "3\ndone\n",
        "",
    ),
    (
        "printf '%s-%d-%x-%o-%5.2f-%c-%b\\n' str 42 255 8 3.14159 xyz 'a\\tb'; printf '%3s|%-3s|\\n' a b; printf 'no newline'",
        0,
        "str-42-ff-10- 3.14-x-a\tb\n  a|b  |\nno newline",
        "",
    ),
    ("echo $((1/0))", 1, "", "/system/bin/sh: 1/0: zero divisor\n"),
    (
        'x=; [ -z "$x" ] && echo empty; [ -n "$x" ] || echo notnon; test 1 -eq 1 -a 2 -gt 1 && echo ok; [ abc \\< abd ] && echo lt',
        0,
        "empty\nnotnon\nok\nlt\n",
        "",
    ),
    ("a=(1 2 3); echo ${a[1]} ${#a[@]}", 0, "2 3\n", ""),
    ("echo ${x?unset is bad}; echo after", 1, "", "/system/bin/sh: x: unset is bad\n"),
    ('read a b <<< "one two three"; echo "$a|$b"', 0, "one|two three\n", ""),
    ('v=$(echo sub; exit 3); echo "$v $?"; echo `echo back`', 0, "sub 3\nback\n", ""),
    ("echo {a,b}c; echo ~ ; echo *.nothere", 0, "ac bc\n/\n*.nothere\n", ""),
    ("false; echo $?; true; echo $?; ! true; echo $?; (exit 7); echo $?", 0, "1\n0\n1\n7\n", ""),
    ('x=5; let x+=2; echo $x; let "y = x * 2"; echo $y', 0, "7\n14\n", ""),
    (
        "echo $((x=3, x+1)) $x; echo $(( 1 + ))",
        1,
        "4 3\n",
        "/system/bin/sh:  1 + : unexpected 'end of expression'\n",
    ),
    ("typeset -i n=5; n=n+1; echo $n; typeset -u up=abc; echo $up", 0, "6\nABC\n", ""),
    ('echo "a\'b" \'c"d\' "\\$x \\\\ \\`"', 0, "a'b c\"d $x \\ `\n", ""),
    ("IFS=:; set -- $(echo a:b:c); echo $#; IFS=' '", 0, "3\n", ""),
    ("for x; do echo $x; done; echo end", 0, "end\n", ""),
    ("echo $-; set -e; false; echo notreached", 1, "hc\n", ""),
    ("cd /nonexistent; echo $?", 0, "2\n", "/system/bin/sh: cd: /nonexistent: No such file or directory\n"),
    ("unknown_cmd_xyz; echo $?", 0, "127\n", "/system/bin/sh: unknown_cmd_xyz: inaccessible or not found\n"),
    ("echo ${#}; echo ${10}; set -- 1 2 3 4 5 6 7 8 9 10 11; echo ${10} $10", 0, "0\n\n10 10\n", ""),
    ('x="a b"; set -- $x; echo $#; set -- "$x"; echo $#', 0, "2\n1\n", ""),
    (
        '[[ abc == a* ]] && echo glob; [[ -n x && -z "" ]] && echo both; [[ 10 -gt 9 ]] && echo num',
        0,
        "glob\nboth\nnum\n",
        "",
    ),
    ("echo $RANDOM | grep -q '^[0-9]*$' && echo rnd", 0, "rnd\n", ""),
    ("trap 'echo bye' EXIT; echo hi", 0, "hi\nbye\n", ""),
    ("x=1; { x=2; }; echo $x; (x=3); echo $x", 0, "2\n2\n", ""),
    (
        "echo $(( 10 > 3 && 2 < 1 )) $(( ~0 )) $(( 7 ^ 2 )) $(( -2 ** 2 ))",
        1,
        "",
        "/system/bin/sh:  -2 ** 2 : unexpected '*'\n",
    ),
    ("print -n hello; print; print -r 'a\\nb'", 0, "hello\na\\nb\n", ""),
    ("whence echo; type echo; command -v ls", 0, "echo\necho is a shell builtin\n/system/bin/ls\n", ""),
    (
        '[[ abc == a* ]] && echo glob; [[ -n x && -z "" ]] && echo both; [[ 10 -gt 9 ]] && echo num',
        0,
        "glob\nboth\nnum\n",
        "",
    ),
    (
        'x="a b"; [[ $x = "a b" ]] && echo eq; [[ $x == a\\ * ]] && echo pat; [[ $x == "a*" ]] || echo quoted; y="a*"; [[ "a b" == $y ]] && echo var; [[ b > a ]] && echo gt; [[ 2 -lt 10 ]] && echo lt; [[ x && ! "" ]] && echo not; [[ (a = b) || 1 -eq 1 ]] && echo grp',
        0,
        "eq\npat\nquoted\nvar\ngt\nlt\nnot\ngrp\n",
        "",
    ),
    (
        "[[ 1+1 -eq 2 ]] && echo arith; [[ abc -eq 0 ]]; echo $?; [[ -o errexit ]]; echo $?; [[ -v HOME ]]; echo $?",
        0,
        "arith\n0\n1\n0\n",
        "",
    ),
    (
        "[[ -d / ]] && echo dir; [[ -f / ]] || echo notfile; [[ -e /nonexist ]]; echo $?; [[ ! -e /nonexist ]] && echo neg",
        0,
        "dir\nnotfile\n1\nneg\n",
        "",
    ),
    (
        "[[ abc =~ a ]]; echo after $?",
        1,
        "",
        "/system/bin/sh: syntax error: unexpected operator/operand '=~'\n",
    ),
    (
        "[[ a != b ]] && echo ne; [[ abc != a?c ]]; echo $?; [[ a < b && b > a ]] && echo ok",
        0,
        "ne\n1\nok\n",
        "",
    ),
    (
        'cat <<EOF\na $HOME \\$x `echo b` "q" \'s\'\nEOF\ncat <<"E"\n$HOME\nE\ncat <<-X\n\ttab\n\tX\ncat <<<"here $HOME"; cat <<A; echo mid\none\nA',
        0,
        "a / $x b \"q\" 's'\n$HOME\ntab\nhere /\none\nmid\n",
        "",
    ),
    ("cat <<EOF\nnever closed", 1, "", "/system/bin/sh: here document 'EOF' unclosed\n"),
    (
        'IFS=:; x="a::b:"; set -- $x; echo $#; for i in "$@"; do echo "[$i]"; done; echo "$*"; IFS=; set -- $x; echo $#',
        0,
        "3\n[a]\n[]\n[b]\na::b\n1\n",
        "",
    ),
    (
        'x="  a  b  "; set -- $x; echo $#; IFS=" :"; y=" a : b :: c "; set -- $y; echo $#; printf "[%s]" "$@"; echo',
        0,
        "2\n4\n[a][b][][c]\n",
        "",
    ),
    (
        'set -- "a b" c; for i in $@; do echo $i; done; for i in "$*"; do echo "$i"; done; IFS=-; echo "$*" $*',
        0,
        "a\nb\nc\na b c\na b-c a b c\n",
        "",
    ),
    (
        'for w in $(echo one two; echo three); do echo "<$w>"; done; x=\'*\'; echo "$x"',
        0,
        "<one>\n<two>\n<three>\n*\n",
        "",
    ),
    (
        'echo {a,b}c {1..3} {a,b{c,d}}e x{}y {a} "{a,b}" a{,}b',
        0,
        "ac bc {1..3} ae bce bde x{}y {a} {a,b} ab ab\n",
        "",
    ),
    ('echo ~ ~/x "~" a~; x=~/y; echo $x; HOME=/data; echo ~', 0, "/ //x ~ a~\n//y\n/data\n", ""),
    (
        "typeset -i x=3+4; echo $x; typeset -l y=ABC; echo $y; x=abc; echo $x; typeset -x e=1; typeset -p x y e",
        0,
        "7\nabc\n0\ntypeset -i x=0\ntypeset -l y=abc\ntypeset -x e=1\n",
        "",
    ),
    ("readonly r=1; r=2; echo after", 2, "", "/system/bin/sh: read-only: r\n"),
    (
        "readonly r=1; typeset r=3; echo after $?; unset r; echo $?",
        0,
        "after 2\n1\n",
        "/system/bin/sh: typeset: read-only: r\n/system/bin/sh: read-only: r\n",
    ),
    (
        'let x=1/0; echo s$?; let 0; echo $?; let "y=2" "0"; echo $?; let; echo $?',
        0,
        "s2\n1\n1\n1\n",
        "/system/bin/sh: x=1/0: zero divisor\n/system/bin/sh: let: missing argument\n",
    ),
    ('x=5; let x+=2 y=x*3; echo $x $y; let "z = (x > 3) ? 10 : 20"; echo $z', 0, "7 21\n10\n", ""),
    (
        'print -n a; print -r "x\\ty"; print "x\\ty\\c" ; print; print -u2 err; print -- -n; print -R -n z; echo; print -e "q\\n"',
        0,
        "ax\\ty\nx\ty\n-n\nz\nq\n\n",
        "err\n",
    ),
    (
        "whence cd if true; echo $?; type cd if true [[ let print",
        0,
        "cd\nif\ntrue\n0\ncd is a shell builtin\nif is a reserved word\ntrue is a shell builtin\n[[ is a reserved word\nlet is a shell builtin\nprint is a shell builtin\n",
        "",
    ),
    (
        "whence echo nope ls; echo $?; whence -v nope; echo $?; command -v nope; echo $?;command -V nope; echo $?",
        0,
        "echo\n1\nnope not found\n1\n1\nnope not found\n1\n",
        "",
    ),
    (
        "f() { :; }; whence f; whence -v f; type f; command -v f; command -V f",
        0,
        "f\nf is a function\nf is a function\nf\nf is a function\n",
        "",
    ),
    ('set -x; echo "a b" c; x=1; f() { :; }; f 1', 0, "a b c\n", "+ echo 'a b' c\n+ x=1 \n+ f 1\n+ :\n"),
    ("echo $-; set -eu; echo $-; set +e; echo $-", 0, "hc\neuhc\nuhc\n", ""),
    ("set -u; echo $nope; echo after", 1, "", "/system/bin/sh: nope: parameter not set\n"),
    ("set -u; echo ${nope:-d}; echo $1; echo after", 1, "d\n", "/system/bin/sh: 1: parameter not set\n"),
    (
        "set -e; false || true; echo one; false && true; echo two; if false; then :; fi; echo three; ! true; echo four; false; echo five",
        1,
        "one\ntwo\nthree\nfour\n",
        "",
    ),
    ("set -e; f() { false; echo inf; }; f; echo after", 1, "", ""),
    ("set -e; (false); echo notreached", 1, "", ""),
    (
        'trap "echo bye" EXIT; trap; trap - EXIT; trap; trap "echo t" INT TERM; trap',
        0,
        "trap -- 'echo bye' EXIT\ntrap -- 'echo t' INT\ntrap -- 'echo t' TERM\n",
        "",
    ),
    ("trap 'echo bye $?' EXIT; echo hi; exit 3", 3, "hi\nbye 3\n", ""),
    ("trap 'echo err' ERR; false; echo next; true", 0, "err\nnext\n", ""),
    ("(trap 'echo sub' EXIT; echo in); echo out", 0, "in\nsub\nout\n", ""),
    (
        'a=(1 2 3); echo ${a[1]} ${#a[@]} ${a[@]} "${a[*]}" $a ${!a[@]}; a[5]=x; echo ${#a[*]} ${a[5]}; set -A b x y; echo ${b[1]}; unset a[1]; echo ${a[@]}; echo ${#a}',
        0,
        "2 3 1 2 3 1 2 3 1 0 1 2\n4 x\ny\n1 3 x\n1\n",
        "",
    ),
    (
        'a=(x "y z"); for i in "${a[@]}"; do echo "<$i>"; done; i=1; echo ${a[i]} ${a[$i]} ${a[i-1]}; a+=(w); echo ${a[2]}',
        0,
        "<x>\n<y z>\ny z y z x\nw\n",
        "",
    ),
    (
        "((x=1+2)); echo $x; (( x > 5 )); echo $?; ((1/0)); echo s$?",
        0,
        "3\n1\ns2\n",
        "/system/bin/sh: 1/0: zero divisor\n",
    ),
    (
        "echo $((2147483647+1)) $((1<<33)) $((-7/2)) $((-7%2)) $((16#ff)) $((36#z)) $((1#a)) $((0x7fffffff * 2))",
        0,
        "-2147483648 2 -3 -1 255 35 97 -2\n",
        "",
    ),
    (
        "echo $((x=3, x+1)) $x $((x++)) $x $((--x)) $(( !0 )) $((~5)) $((5>>1)) $((-5>>1))",
        0,
        "4 3 3 4 3 1 -6 2 -3\n",
        "",
    ),
    ("echo $((a b))", 1, "", "/system/bin/sh: a b: unexpected 'b'\n"),
    ("echo $((3 = 4))", 1, "", "/system/bin/sh: 3 = 4: = requires lvalue\n"),
    ("echo $((1%0))", 1, "", "/system/bin/sh: 1%0: zero divisor\n"),
    ('y="1 +"; echo $((y))', 1, "", "/system/bin/sh: 1 +: unexpected 'end of expression'\n"),
    ("x=x; echo $((x))", 1, "", "/system/bin/sh: x: expression recurses on parameter 'x'\n"),
    ("echo $((0x1g))", 1, "", "/system/bin/sh: 0x1g: bad number '0x1g'\n"),
    ("echo $((08)) $((010)) $((0XfF))", 0, "8 10 255\n", ""),
    ("shift; echo $?", 1, "", "/system/bin/sh: shift: nothing to shift\n"),
    (
        "set -- a b; shift 2; echo $# ; shift; echo after",
        1,
        "0\n",
        "/system/bin/sh: shift: nothing to shift\n",
    ),
    ("echo $'a\\tb\\x41\\n' | od -c | head -2", 0, "0000000   a  \\t   b   A  \\n  \\n\n0000006\n", ""),
    (
        'printf "a b\\n c d \\n" | { read x y; echo "[$x][$y]"; read -r z; echo "[$z]"; }',
        0,
        "[a][b]\n[c d]\n",
        "",
    ),
    (
        'echo "a b c" | { read -A arr; echo ${#arr[@]} ${arr[2]}; }; printf "x:y" | { IFS=: read a b; echo "$a,$b,$?"; }; printf "abc" | { read -n 2 z; echo $z; }; printf "l1;l2" | { read -d ";" w; echo $w; }',
        0,
        "3 c\nx,y,1\nab\nl1\n",
        "",
    ),
    (
        "echo '  lead  trail  ' | { read v; echo \"[$v]\"; }; echo 'a\\ b c' | { read p q; echo \"[$p][$q]\"; }; echo 'a\\ b c' | { read -r p q; echo \"[$p][$q]\"; }",
        0,
        "[lead  trail]\n[a b][c]\n[a\\][b c]\n",
        "",
    ),
    (
        'set -- -a -b foo -c bar; while getopts ab:c o; do echo "$o [$OPTARG] $OPTIND"; done; shift $((OPTIND-1)); echo "$@"',
        0,
        "a [] 2\nb [foo] 4\nc [] 5\nbar\n",
        "",
    ),
    (
        'set -- -ab -cfoo x; while getopts abc: o; do echo "$o [$OPTARG] $OPTIND"; done; echo $OPTIND',
        0,
        "a [] 2\nb [] 2\nc [foo] 3\n3\n",
        "",
    ),
    ("if false; then echo a; elif true; then echo b; else echo c; fi", 0, "b\n", ""),
    (
        "for i in 1 2 3; do for j in a b; do [ $j = b ] && continue 2; [ $i = 3 ] && break 2; echo $i$j; done; done; echo end",
        0,
        "1a\n2a\nend\n",
        "",
    ),
    ("function g { echo g $#; return 4; }; g a b; echo $?", 0, "g 2\n4\n", ""),
    ("x=1; f() { typeset x=2; echo $x; }; f; echo $x", 0, "2\n1\n", ""),
    ("x=1; f() { x=2; }; f; echo $x", 0, "2\n", ""),
    ("case abc in a|b) echo no;; [a-c]bc) echo yes;; *) echo star;; esac", 0, "yes\n", ""),
    ("case x in (x) echo paren;; esac", 0, "paren\n", ""),
    ('echo "$(echo "nested $(echo deep)")"', 0, "nested deep\n", ""),
    ("eval 'echo $1' ; set -- q; eval 'echo $1'; cmd='echo hi'; eval $cmd", 0, "\nq\nhi\n", ""),
    ("echo a; fi", 1, "", "/system/bin/sh: syntax error: unexpected 'fi'\n"),
    ("echo a\nfi", 1, "a\n", "/system/bin/sh: syntax error: unexpected 'fi'\n"),
    ("if true; then echo", 1, "", "/system/bin/sh: syntax error: unmatched 'if'\n"),
    ('echo "abc', 1, "", "/system/bin/sh: no closing quote\n"),
    ("for 1 in a; do :; done", 1, "", "/system/bin/sh: for: bad identifier\n"),
    ("echo $(( 1 + ))", 1, "", "/system/bin/sh:  1 + : unexpected 'end of expression'\n"),
    ("echo ${x?unset is bad}; echo after", 1, "", "/system/bin/sh: x: unset is bad\n"),
    ("x=5; echo ${x:-d} ${#x} ${x:+p}; unset x; echo ${x-u}", 0, "5 1 p\nu\n", ""),
    ('v=$(echo sub; exit 3); echo "$v $?"', 0, "sub 3\n", ""),
    ("echo $((2**3))", 1, "", "/system/bin/sh: 2**3: unexpected '*'\n"),
    ("i=0; while ((i < 3)); do ((i++)); done; echo $i", 0, "3\n", ""),
    (
        'str="hello world"; echo ${str^^} 2>&1 | head -1',
        0,
        "",
        "/system/bin/sh: ${str^^}: bad substitution\n",
    ),
    ("[ abc \\< abd ] && echo lt; [ b \\> a ] && echo gt", 0, "lt\ngt\n", ""),
    ("x=abc; echo ${x:1} ${x: -1} ${x:0:1}", 0, "bc c a\n", ""),
    ("set -A arr c b a; echo ${arr[*]}; echo ${#arr[*]}", 0, "c b a\n3\n", ""),
    ('echo "${undefined[@]}" end; arr=(); echo ${#arr[@]}', 0, "end\n0\n", ""),
    ("unset x; x+=a; x+=b; echo $x; typeset -i n=1; n+=2; echo $n", 0, "ab\n12\n", ""),
    ("typeset -u u; u=hello; echo $u; typeset +u u; u=World; echo $u", 0, "HELLO\nWorld\n", ""),
    ("f() { local -i c=5; c=c*2; echo $c; }; f", 0, "10\n", ""),
    ("echo ${#@} ${#*}; set -- a b c; echo ${#@}", 0, "0 0\n3\n", ""),
    ('IFS=,; read a b c <<< "1,2,3"; echo $b', 0, "2\n", ""),
    ('x="a   b"; echo $x; echo "$x"', 0, "a b\na   b\n", ""),
    ("echo $(printf 'a\\n\\nb\\n\\n')", 0, "a b\n", ""),
    ('set -- "" ""; echo $#; x=; set -- $x; echo $#; set -- "$x"; echo $#', 0, "2\n0\n1\n", ""),
    ('echo "${x:-a b}" ${x:-a b}; for i in ${x:-a b}; do echo $i; done', 0, "a b a b\na\nb\n", ""),
    ("x='a  b'; y=$x; echo \"$y\"", 0, "a  b\n", ""),
    ('a="*"; echo $a | head -c 0; echo done', 0, "done\n", ""),
    ("echo `echo a \\`echo b\\``", 0, "a b\n", ""),
    ("for f in a b; do echo $f; done > /dev/null; echo ok", 0, "ok\n", ""),
    ('x=$(cat <<EOF\ninner $HOME\nEOF\n); echo "$x"', 0, "inner /\n", ""),
    (
        'f() { echo "args: $*"; echo "count: $#"; }; f "a b" c; f',
        0,
        "args: a b c\ncount: 2\nargs: \ncount: 0\n",
        "",
    ),
    ('echo "${HOME}/x" \'$HOME\' "\\$HOME" "a\\\\b"', 0, "//x $HOME $HOME a\x08\n", ""),
    ("n=0; while read line; do n=$((n+1)); done <<EOF\na\nb\nc\nEOF\necho $n", 0, "3\n", ""),
    ('a="x y z"; set -- $a; echo $2; IFS=; set -- $a; echo $#', 0, "y\n1\n", ""),
    (
        "echo $(( (3+4) * 2 )) $(( 10 / 3 )) $(( 10 % 3 )) $(( 2 << 3 )) $(( 0x10 + 010 ))",
        0,
        "14 3 1 16 26\n",
        "",
    ),
    ('[ -z "" ] && [ -n a ] && echo yes; [ 1 -lt 2 -a 3 -gt 2 ] && echo and', 0, "yes\nand\n", ""),
    ("test -d / && echo isdir; test ! -f / && echo notfile", 0, "isdir\nnotfile\n", ""),
    ("cd /; pwd; cd /nonexistent 2>/dev/null || echo failed", 0, "/\nfailed\n", ""),
    ("echo one 1>&2 2>/dev/null; echo two 2>&1", 0, "two\n", "one\n"),
    ("{ echo a; echo b; } | wc -l", 0, "2\n", ""),
    ("x=1; (x=2; echo $x); echo $x", 0, "2\n1\n", ""),
    ("true && echo t || echo f; false && echo t || echo f", 0, "t\nf\n", ""),
    ('case "$1" in "") echo empty;; *) echo set;; esac', 0, "empty\n", ""),
    ("s=abc; case $s in *b*) echo hasb;; esac; case $s in a??) echo three;; esac", 0, "hasb\nthree\n", ""),
    ("i=0; until [ $i -ge 2 ]; do echo $i; i=$((i+1)); done", 0, "0\n1\n", ""),
    ('echo $#; echo $0 | head -c 0; echo "${1:-none}"', 0, "0\nnone\n", ""),
    ('set -- 1 2 3; for a in "$@"; do printf \'%s,\' "$a"; done; echo', 0, "1,2,3,\n", ""),
    ("printf '%s\\n' a b c | while read l; do echo \"<$l>\"; done", 0, "<a>\n<b>\n<c>\n", ""),
    ("x=10; y=3; echo $((x / y)) $((x % y)) $((x * y)) $((x - y))", 0, "3 1 30 7\n", ""),
    ('echo -n "a"; echo -n "b"; echo', 0, "ab\n", ""),
    ("a=1; b=${a:+yes}; c=${z:-no}; echo $b $c", 0, "yes no\n", ""),
    ('str="a,b,c"; IFS=,; for p in $str; do echo $p; done', 0, "a\nb\nc\n", ""),
    ('echo "$(( $(echo 3) + 4 ))"', 0, "7\n", ""),
    ("f() { return 1; }; if f; then echo yes; else echo no; fi", 0, "no\n", ""),
    ('x="hello"; echo ${x#h} ${x%o} ${x/l/L} ${#x}', 0, "ello hell heLlo 5\n", ""),
    ('echo a | { read v; echo "got $v"; }', 0, "got a\n", ""),
    ("type -p ls 2>&1; whence -p ls", 0, "ls is a tracked alias for /system/bin/ls\n/system/bin/ls\n", ""),
    ("set -o errexit; false; echo no", 1, "", ""),
    ("set -o xtrace; echo hi", 0, "hi\n", "+ echo hi\n"),
    ("echo $((1 > 2 ? 5 : 6)) $(( 1 && 0 )) $(( 0 || 3 ))", 0, "6 0 1\n", ""),
    ("echo ${#x[@]}; x[3]=a; echo ${#x[@]} ${!x[@]}", 0, "0\n1 3\n", ""),
    ('a=(one two); echo "${a[@]:-none}" ${a[0]:-z}', 0, "one two one\n", ""),
    ('print -- "-n"; print -n -- x; echo', 0, "-n\nx\n", ""),
    ("echo $(( 5 / 0 )) 2>/dev/null; echo after", 1, "", "/system/bin/sh:  5 / 0 : zero divisor\n"),
    ("f() { echo $FUNCNAME; }; f", 0, "\n", ""),
    ("echo {a,b}{1,2}", 0, "a1 a2 b1 b2\n", ""),
    ("echo a{b,c}d{e,f}", 0, "abde abdf acde acdf\n", ""),
    ("echo ${x:=dflt}; echo $x", 0, "dflt\ndflt\n", ""),
    ("x=abc; echo ${x/#a/A} ${x/%c/C}", 0, "Abc abC\n", ""),
    ("printf '%d\\n' \"'A\"", 0, "65\n", ""),
    ("echo $(( 3 > 2 )) $(( 3 == 3 )) $(( 3 != 3 ))", 0, "1 1 0\n", ""),
]


@pytest.mark.parametrize(("script", "status", "out", "err"), CASES)
def test_script_runs_as_mksh_runs_it(sh: ShellDevice, script: str, status: int, out: str, err: str) -> None:
    r = sh.run(script)
    assert (r.status, r.out.decode("utf-8", "surrogateescape"), r.error) == (status, out, err)


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("echo " + "{a,b}" * 13, "brace expansion too large"),  # 8192 words: over the bound
        ("a[100000]=x", "a[100000]: subscript out of range"),
        ("echo $((" + "(" * 30 + "1" + ")" * 30 + "))", "expression too deeply nested"),
        ("echo $((" + "1+" * 600 + "1))", "expression too long"),
    ],
)
def test_bounds_refuse_with_a_message(sh: ShellDevice, script: str, message: str) -> None:
    r = sh.run(script)
    assert r.status == 1 and message in r.error


def test_many_here_documents_on_a_line_are_refused(sh: ShellDevice) -> None:
    r = sh.run("cat" + " <<E" * 100 + "\nE\n" * 100)
    assert (r.status, r.error) == (1, "/system/bin/sh: syntax error: too many here documents\n")


PIECES = [
    "echo a", "[[ $x == a* ]]", "[[ -n $x && ! -z y ]]", "(( x += 2 ))", "let y=x*2", "x=(1 2 3)",
    "echo ${x[1]} ${#x[@]}", "typeset -i n=3", "typeset -u u=ab", "print -r -- $x", "whence echo",
    "type ls", "set -u", "set +u", "set -x", "set +x", "trap 'echo t' EXIT", "cat <<<$x",
    "echo {a,b}{c,d}", "echo ~/x", "IFS=:", "IFS=' '", "set -- $(echo a:b)", "shift", "read v <<< 'a b'",
    "getopts ab: o", "f() { local z=1; return 2; }", "f", "if true; then echo t; fi",
    "for i in 1 2; do continue; done", "while false; do :; done", "case $x in a|b) ;; esac", "echo $((x/0))",
    "echo ${y:?}", "echo $'a\\tb'", "readonly r=1", "r=2", "unset x", "eval 'echo $x'", "set -e", "false",
]  # fmt: skip
GLUE = ["; ", " && ", " || ", " | ", "\n"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(GLUE)), max_size=8))
def test_random_scripts_end_with_a_status(sh: ShellDevice, pieces: list[tuple[str, str]]) -> None:
    script = "".join(piece + glue for piece, glue in pieces)
    r = sh.run(script)
    assert 0 <= r.status <= 255
    assert "Traceback" not in r.error and "internal error" not in r.error


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="ab1$(){}[]<>=!&|;'\"~,+-*/#%?:\n\\ ", max_size=50))
def test_random_text_ends_with_a_status(sh: ShellDevice, text: str) -> None:
    for script in (text, f"[[ {text} ]]", f"echo $(({text}))", f"x=({text})", f"cat <<E\n{text}\nE"):
        r = sh.run(script)
        assert 0 <= r.status <= 255
        assert "Traceback" not in r.error and "internal error" not in r.error
