#!/usr/bin/env bash
# cli_test.sh CASE SOMA MAKE_STORE WORK VERSION: one case of the tests of the
# `soma` command (tests/cli/CMakeLists.txt makes each case a CTest test).
#
# `setup` records the stores into WORK with make_store; every other case runs
# the real SOMA binary on them and checks its stdout, stderr and exit code.
# Times (took_us, when, first, last, began_us) are the only thing a run does
# not decide; everything else is checked exactly.

set -u
case_=$1 SOMA=$2 MAKE_STORE=$3 WORK=$4 VERSION=$5
STORE=$WORK/store       # runs "tuesday" and "plain"
DAMAGED=$WORK/damaged   # run "bad", forward 1's record and 2's facts damaged; a reading too
FLEET=$WORK/fleet       # readings of alpha-101 and beta-202, run "remote" (make_store.cpp)
GAP=$WORK/gap           # alpha-101 and beta-202 reporting, beta-202 silent for 20 s (make_store.cpp)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/soma-cli-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

# fail, soma
. "$HERE/helpers.sh"

# expect_out TEXT / expect_err TEXT: the whole stream is TEXT and a newline.
expect_out() { diff -u <(printf '%s\n' "$1") "$T/out" >&2 || fail "stdout differs"; }
expect_err() { diff -u <(printf '%s\n' "$1") "$T/err" >&2 || fail "stderr differs"; }
no_out() { [ ! -s "$T/out" ] || fail "expected nothing on stdout"; }
no_err() { [ ! -s "$T/err" ] || fail "expected nothing on stderr"; }

# expect_usage_error TEXT ARGS...: exit code 2, nothing on stdout, exactly
# the line "soma: TEXT" on stderr.
expect_usage_error() {
  local text=$1
  shift
  soma 2 "$@"
  no_out
  expect_err "soma: $text"
}

# error_starting TEXT ARGS...: exit code 2, nothing on stdout, one line on
# stderr starting with "soma: TEXT".
error_starting() {
  local text=$1
  shift
  soma 2 "$@"
  no_out
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one line on stderr"
  [[ "$(cat "$T/err")" == "soma: $text"* ]] || fail "stderr should start with 'soma: $text'"
}

# table ALIGNS <<< "header names, then rows (cells tab-separated, # a number)":
# $T/out is that table (check_table.py says how cells are matched).
table() {
  cat >"$T/expected"
  python3 "$HERE/check_table.py" "$T/out" "$1" "$T/expected" || fail "the table differs"
}

# json CHECK: runs the Python CHECK with `rows` the JSON array on stdout.
json() {
  python3 -c "import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list), 'not one JSON array'
$1" "$T/out" || fail "the JSON differs"
}

# The loss make_store told after forward `step`, as the seed computes it.
LOSSES='
def losses(n=12):
    out, loss = [], 2.0
    for _ in range(n):
        out.append(loss + 0.1)
        loss *= 0.93
    return out
'

case "$case_" in
completion)
  # bash completion, as installed: subcommands, options, and the store's
  # runs where RUN goes (read with `soma runs --json`).
  script="$(dirname "$0")/../../apps/soma/completion/soma.bash"
  got=$(PATH="$(dirname "$SOMA"):$PATH" bash -c '
    source "$1"
    # Each answer sorted: which words, not their order (runs come in the
    # order they began, and two begun in one second by id).
    ask() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _soma;
            printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd " " -; }
    ask soma se
    ask soma forwards --store "$2" ""
    ask soma plot ""
    ask soma serve --li
    ask soma curve --store "$2" tuesday ""
    ask soma live --store "$2" --run t
    ask soma --store "$2" trace ""
    ask soma plot progress tuesday --s
    complete -p soma' _ "$script" "$STORE") || fail "the completion script failed"
  expected="serve
plain tuesday
graph machines progress spent study
--listen --live-cap

tuesday
plain tuesday
--size --store
complete -F _soma soma"
  [ "$got" = "$expected" ] || fail "completion gave:
$got
expected:
$expected"
  ;;
setup)
  rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot make $WORK"
  "$MAKE_STORE" "$STORE" || fail "make_store $STORE failed"
  "$MAKE_STORE" "$DAMAGED" --damaged || fail "make_store $DAMAGED --damaged failed"
  "$MAKE_STORE" "$FLEET" --fleet || fail "make_store $FLEET --fleet failed"
  "$MAKE_STORE" "$GAP" --quiet-gap || fail "make_store $GAP --quiet-gap failed"
  # docs/health.md's replay compares the shipped rules with this file.
  printf '# quiet_machine later: 10 s quiet, not 2.5\n[quiet_machine]\nover = 20\n' > "$WORK/later.rules"
  ;;

help)
  soma 0 --help
  no_err
  for word in "Usage: soma" runs forwards curve facts nodes standing fleet --store --json \
              "What each command costs"; do
    grep -qF -- "$word" "$T/out" || fail "--help does not mention '$word'"
  done
  soma 0 curve --help
  grep -qF "NAME" "$T/out" || fail "curve --help does not name NAME"
  # The price list is said once, by `soma --help`; a subcommand points there.
  grep -qF "What each command costs:" "$T/out" && fail "curve --help repeats the price list"
  grep -qF "What each command costs, and the exit statuses: \`soma --help\`." "$T/out" \
    || fail "curve --help does not point at soma --help"
  # `soma help` is `soma --help`; `soma help curve` is `soma curve --help`.
  cp "$T/out" "$T/curve-help"
  soma 0 help curve
  diff -u "$T/curve-help" "$T/out" >&2 || fail "soma help curve is not soma curve --help"
  soma 0 --help
  cp "$T/out" "$T/help"
  soma 0 help
  no_err
  diff -u "$T/help" "$T/out" >&2 || fail "soma help is not soma --help"
  # A command it does not know is a usage error naming it and the commands.
  soma 2 help nope
  grep -qF "soma: there is no command 'nope' to help with; the commands are runs, forwards," "$T/err" \
    || fail "soma help nope does not name nope and the commands"
  [ -s "$T/out" ] && fail "soma help nope printed help"
  ;;

version)
  soma 0 --version
  expect_out "soma $VERSION"
  no_err
  ;;

runs)
  soma 0 runs --store "$STORE" --sort run
  no_err
  table LLRRRRRLLRLL <<EOF
run	status	forwards	broke	execs	duration	took	first	last	loss	params	tags
plain	finished	3	1	1	~	~	@	@	-	lr=0.5	baseline,short
tuesday	finished	12	0	1	~	~	@	@	1.00021	lr=0.05,seed=7	baseline
EOF
  # The options go before the subcommand too.
  cp "$T/out" "$T/after"
  soma 0 --store "$STORE" runs --sort run
  diff -u "$T/after" "$T/out" >&2 ||
    fail "--store before the subcommand reads something else"
  # By default, in the order they began (then by id).
  soma 0 runs --store "$STORE" --json
  cp "$T/out" "$T/all.json"
  soma 0 runs --store "$STORE"
  python3 - "$T/all.json" "$T/out" <<'PY' || fail "the default order is not by first"
import json, sys
rows = json.load(open(sys.argv[1]))
want = [r["run"] for r in sorted(rows, key=lambda r: (r["first"], r["run"]))]
got = [l.split()[0] for l in open(sys.argv[2]).read().splitlines()[1:]]
assert got == want, (got, want)
PY
  ;;

runs_json)
  soma 0 runs --store "$STORE" --json --sort run
  no_err
  json '
assert [list(r) for r in rows] == [["run", "forwards", "broke", "took_us", "first", "last", "duration_us", "status",
                                    "how", "ended_us", "params", "tags", "trial", "values",
                                    "executions", "began"]] * 2
# The summarised loss over each run: for tuesday (make_store: 2.1 falling to
# about 1.0002), plain summarises nothing.
assert rows[0]["values"] == {}, rows[0]
loss = rows[1]["values"]["loss"]
assert loss["max"] == 2.1 and loss["min"] == loss["last"] and 1.0 < loss["last"] < 1.001, loss
assert all(r["trial"] is None for r in rows)  # no trial gave them
import os, socket
for r in rows:  # how long it lasted by the wall clock, first forward began to last ended
    assert type(r["duration_us"]) is int and r["duration_us"] > 0, r
for r in rows:  # one recorder each: one execution, from forward 0, make_store
    assert r["executions"] == 1 and len(r["began"]) == 1, r
    b = r["began"][0]
    assert b["forward"] == 0 and b["host"] == socket.gethostname() and type(b["pid"]) is int, b
    assert r["first"] <= b["began_us"] // 1000000, r  # its first write: after its first forward began
assert [(r["run"], r["forwards"], r["broke"]) for r in rows] == [("plain", 3, 1), ("tuesday", 12, 0)]
for r in rows:
    assert all(type(r[k]) is int for k in ("took_us", "first", "last", "ended_us")), r
    assert r["took_us"] > 0 and 0 < r["first"] <= r["last"], r
    assert r["status"] == "finished" and r["how"].startswith("its recorder closed it at "), r
    assert r["first"] <= r["ended_us"] // 1000000, r
assert rows[1]["params"] == {"lr": 0.05, "seed": 7} and type(rows[1]["params"]["seed"]) is int
assert rows[0]["params"] == {"lr": 0.5}
assert rows[0]["tags"] == ["baseline", "short"] and rows[1]["tags"] == ["baseline"]'
  soma 0 --json runs --store "$STORE" --sort run
  json 'assert [r["run"] for r in rows] == ["plain", "tuesday"]'
  # The same rows as CSV: the JSON's fields as columns, params one column each.
  soma 0 runs --store "$STORE" --csv --sort run
  no_err
  python3 - "$T/out" <<'PY' || fail "the CSV differs"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["run", "forwards", "broke", "took_us", "first", "last", "duration_us", "status", "how",
                   "ended_us", "params.lr", "tags", "trial", "executions", "began", "params.seed",
                   "values.loss.last", "values.loss.min", "values.loss.max"], rows[0]
assert [r[0] for r in rows[1:]] == ["plain", "tuesday"], rows
assert rows[1][10] == "0.5" and rows[1][11] == "baseline;short" and rows[1][15] == "", rows[1]
assert rows[2][10] == "0.05" and rows[2][15] == "7" and rows[2][12] == "", rows[2]
assert rows[1][13] == "1" and rows[1][14].startswith('{"forward":0,"began_us":'), rows[1]
assert rows[1][16:] == ["", "", ""] and rows[2][18] == "2.1", rows
assert rows[1][7] == "finished" and rows[1][8].startswith("its recorder closed it at "), rows[1]
PY
  ;;

runs_filters)
  names() { python3 -c 'import json,sys; print(" ".join(r["run"] for r in json.load(open(sys.argv[1]))))' "$T/out"; }
  want() { [ "$(names)" = "$1" ] || fail "soma runs $2 listed '$(names)', not '$1'"; }
  soma 0 runs tue --store "$STORE" --json; want "tuesday" "tue"
  soma 0 runs --store "$STORE" --json --tag short; want "plain" "--tag short"
  soma 0 runs --store "$STORE" --json --tag baseline --tag short; want "plain" "--tag baseline --tag short"
  soma 0 runs --store "$STORE" --json --tag nope; want "" "--tag nope"
  soma 0 runs --store "$STORE" --json --param lr=0.05; want "tuesday" "--param lr=0.05"
  soma 0 runs --store "$STORE" --json --param lr=5e-2; want "tuesday" "--param lr=5e-2 (the same number)"
  soma 0 runs --store "$STORE" --json --param seed; want "tuesday" "--param seed"
  soma 0 runs --store "$STORE" --json --param seed=8; want "" "--param seed=8"
  soma 0 runs --store "$STORE" --json --status finished --sort run; want "plain tuesday" "--status finished"
  soma 0 runs --store "$STORE" --json --status running --status died; want "" "--status running --status died"
  soma 0 runs --store "$STORE" --json --sort lr; want "tuesday plain" "--sort lr"
  soma 0 runs --store "$STORE" --json --sort lr --reverse; want "plain tuesday" "--sort lr --reverse"
  soma 0 runs --store "$STORE" --json --sort forwards --reverse; want "tuesday plain" "--sort forwards --reverse"
  soma 0 runs --store "$STORE" --json --sort run --first 1; want "plain" "--first 1"
  soma 0 runs --store "$STORE" --json --sort run --last 1; want "tuesday" "--last 1"
  # A run without the parameter sorts last, whichever way.
  soma 0 runs --store "$STORE" --json --sort seed; want "tuesday plain" "--sort seed"
  expect_usage_error "--status done: a run stands running, finished, died or unknown; \`soma runs --help\` says how it goes" \
    runs --store "$STORE" --status done
  expect_usage_error "--sort speed: it is not a column (first, last, run, status, forwards, broke, duration, took), and no run listed has a value (loss, min:loss, max:loss) or a parameter named so" \
    runs --store "$STORE" --sort speed
  # Comparisons: tuesday has lr=0.05, plain lr=0.5; a run without the
  # parameter passes no test of it.
  soma 0 runs --store "$STORE" --json --param 'lr>0.1'; want "plain" "--param lr>0.1"
  soma 0 runs --store "$STORE" --json --param 'lr>=0.05' --param 'lr<0.1'; want "tuesday" "--param lr>=0.05 lr<0.1"
  soma 0 runs --store "$STORE" --json --param 'lr<=0.5' --sort run; want "plain tuesday" "--param lr<=0.5"
  soma 0 runs --store "$STORE" --json --param 'lr!=0.5'; want "tuesday" "--param lr!=0.5"
  soma 0 runs --store "$STORE" --json --param 'seed!=8'; want "tuesday" "--param seed!=8 (plain has no seed)"
  syntax="it takes NAME for any value, or NAME=VALUE, NAME!=VALUE, NAME<VALUE, NAME<=VALUE, NAME>VALUE or NAME>=VALUE (the last four compare numbers); \`soma runs --help\` says how it goes"
  expect_usage_error "--param '=3': no NAME before the operator; $syntax" runs --store "$STORE" --param =3
  expect_usage_error "--param 'lr=>0.1': '=>' is no operator; $syntax" runs --store "$STORE" --param 'lr=>0.1'
  expect_usage_error "--param 'lr~0.1': '~' is no operator; $syntax" runs --store "$STORE" --param 'lr~0.1'
  expect_usage_error "--param 'lr>abc': > compares numbers, and 'abc' is not one; $syntax" \
    runs --store "$STORE" --param 'lr>abc'
  # Nothing listed says why on stderr, exit 0, the header still on stdout.
  soma 0 runs --store "$STORE" --tag Study:lr
  expect_out "run  status  forwards  broke  execs  duration  took  first  last  params  tags"
  expect_err "soma: 0 of 2 runs match --tag Study:lr"
  ;;

runs_where)
  names() { python3 -c 'import json,sys; print(" ".join(r["run"] for r in json.load(open(sys.argv[1]))))' "$T/out"; }
  want() { [ "$(names)" = "$1" ] || fail "soma runs $2 listed '$(names)', not '$1'"; }
  # Summarised values: --where compares them, --sort orders by them (the
  # last, the least or the greatest); a run without the value passes no
  # test of it, and sorts last.
  soma 0 runs --store "$STORE" --json --where 'loss<1.5'; want "tuesday" "--where loss<1.5"
  soma 0 runs --store "$STORE" --json --where 'loss>1.5'; want "" "--where loss>1.5"
  soma 0 runs --store "$STORE" --json --where 'max:loss>=2.1' --where 'min:loss!=2.1'; want "tuesday" "--where max:loss>=2.1 min:loss!=2.1"
  soma 0 runs --store "$STORE" --json --where 'loss.value<=2'; want "tuesday" "--where loss.value<=2"
  soma 0 runs --store "$STORE" --json --sort loss; want "tuesday plain" "--sort loss"
  soma 0 runs --store "$STORE" --json --sort max:loss --reverse; want "plain tuesday" "--sort max:loss --reverse"
  soma 0 runs --store "$STORE" --json --sort min:loss; want "tuesday plain" "--sort min:loss"
  soma 0 runs --store "$STORE" --json --sort duration
  python3 - "$T/out" <<'PY' || fail "--sort duration: $(cat "$T/out")"
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["duration_us"] for r in rows] == sorted(r["duration_us"] for r in rows), rows
PY
  wsyntax="it takes KEY<NUMBER, KEY<=NUMBER, KEY>NUMBER, KEY>=NUMBER, KEY=NUMBER or KEY!=NUMBER, KEY a summarised value's name (loss: its last; min:loss, max:loss: its least, its greatest); \`soma runs --help\` says how it goes"
  expect_usage_error "--where 'loss': no operator; $wsyntax" runs --store "$STORE" --where loss
  expect_usage_error "--where 'loss<<2': '<<' is no operator; $wsyntax" runs --store "$STORE" --where 'loss<<2'
  expect_usage_error "--where 'min:<2': no KEY before the operator; $wsyntax" runs --store "$STORE" --where 'min:<2'
  expect_usage_error "--where 'loss<low': 'low' is not a number; $wsyntax" runs --store "$STORE" --where 'loss<low'
  soma 0 runs --store "$STORE" --where 'loss<0.5'
  expect_err "soma: 0 of 2 runs match --where 'loss<0.5'"
  soma 0 runs --store "$STORE" --json --param 'lr>1' --status finished
  expect_err "soma: 0 of 2 runs match --status finished --param 'lr>1'"
  soma 0 runs zzz --store "$STORE"
  expect_err "soma: no run named or starting with 'zzz' among the store's 2 runs"
  soma 0 runs tuesdy --store "$STORE"
  expect_err "soma: no run named or starting with 'tuesdy' among the store's 2 runs; did you mean 'tuesday'?"
  expect_usage_error "--json and --csv are two ways to print the same rows: give one; \`soma runs --help\` says how it goes" \
    runs --store "$STORE" --json --csv
  error_starting "--first excludes --last" runs --store "$STORE" --first 1 --last 1
  ;;

forwards_window)
  soma 0 forwards tuesday --store "$STORE" --last 3 --json
  no_err
  json 'assert [r["forward"] for r in rows] == [9, 10, 11], rows'
  soma 0 forwards tuesday --store "$STORE" --first 2 --json
  json 'assert [r["forward"] for r in rows] == [0, 1], rows
assert all(type(r["when_us"]) is int and r["when_us"] // 1000000 == r["when"] for r in rows), rows'
  soma 0 forwards tuesday --store "$STORE" --last 50 --json
  json 'assert len(rows) == 12'
  soma 0 curve tuesday loss --store "$STORE" --last 2 --json
  json 'assert [p[0] if isinstance(p, list) else p["forward"] for p in rows] == [10, 11], rows'
  soma 0 forwards tuesday --store "$STORE" --last 2 --csv
  no_err
  python3 - "$T/out" <<'PY' || fail "the forwards CSV differs"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][:4] == ["forward", "state", "nodes", "took_us"], rows[0]
assert [r[0] for r in rows[1:]] == ["10", "11"], rows
PY
  ;;

delete)
  # On a copy: delete one run, and the rest reads as before and checks clean.
  mkdir "$T/copy"
  cp "$STORE"/*.mdb "$T/copy/"
  soma 2 delete plain --store "$T/copy" </dev/null
  no_out
  expect_err "soma: not deleting 1 run (3 forwards) from the store '$T/copy' without asking, and there is no terminal to ask at; give --yes to delete without asking"
  soma 2 delete tuesday nope --store "$T/copy" --yes
  expect_err "soma: no run 'nope' in the store '$T/copy'; \`soma runs\` lists the runs it holds"
  soma 0 runs --store "$T/copy" --json --sort run
  json 'assert [r["run"] for r in rows] == ["plain", "tuesday"], rows' # nothing deleted
  soma 0 delete plain --store "$T/copy" --yes
  no_out
  expect_err "soma: deleted 1 run (3 forwards) from the store '$T/copy'"
  soma 0 runs --store "$T/copy" --json
  json 'assert [(r["run"], r["forwards"]) for r in rows] == [("tuesday", 12)], rows'
  soma 0 check --store "$T/copy"
  soma 0 forwards tuesday --store "$T/copy" --json
  json 'assert [r["forward"] for r in rows] == list(range(12))'
  soma 0 curve tuesday loss --store "$T/copy" --json
  json 'assert len(rows) == 12'
  soma 0 facts tuesday 11 --store "$T/copy" --json
  soma 0 nodes tuesday --store "$T/copy" --json
  json 'assert [r["node"] for r in rows] == ["tokenize", "embed", "score"], rows'
  expect_usage_error "no run 'plain' in the store '$T/copy'; \`soma runs\` lists the runs it holds" \
    forwards plain --store "$T/copy"
  soma 2 curve plain acc --store "$T/copy" --json
  # A run still being recorded is refused, unless --force.
  mkfifo "$T/said"
  "$MAKE_STORE" "$T/copy" --recording >"$T/said" 2>"$T/writer.err" &
  writer=$!
  exec 3<"$T/said"
  read -r -t 30 line <&3 || { kill -9 $writer; fail "the writer never said it records"; }
  [ "$line" = recording ] || { kill -9 $writer; fail "the writer said '$line'"; }
  soma 2 delete live --store "$T/copy" --yes
  grep -qF "soma: run 'live' is still being recorded (its writer, pid $writer on this machine, lives); stop its recorder first, or give --force to delete it anyway" "$T/err" ||
    { kill -9 $writer; fail "a live run was not refused as it should be: $(cat "$T/err")"; }
  soma 0 delete live --store "$T/copy" --yes --force
  kill -9 $writer
  wait $writer 2>/dev/null
  exec 3<&-
  soma 0 check --store "$T/copy"
  ;;

forwards)
  soma 0 forwards tuesday --store "$STORE"
  no_err
  python3 -c "$LOSSES
print('forward\tstate\tnodes\ttook\tloss.value\twhen')
for n, loss in enumerate(losses()):
    print(f'{n}\tok\t3\t~\t{loss:.6g}\t@')" | table RLRRRL
  grep -q '^      0  ok         3 .* 2\.1  20[0-9-]*T[0-9:]*Z$' "$T/out" || fail "forward 0 should say loss 2.1"
  # A person reads six significant digits; --json keeps what was told.
  grep -q '^      1  ok         3 .*  1\.96  ' "$T/out" || fail "forward 1's loss is not 1.96: $(sed -n 3p "$T/out")"
  soma 0 forwards plain --store "$STORE"
  no_err
  table RLRRL <<EOF
forward	state	nodes	took	when
0	ok	3	~	@
1	broke	3	~	@
2	ok	3	~	@
EOF
  ;;

forwards_json)
  soma 0 forwards tuesday --store "$STORE" --json
  no_err
  json "$LOSSES
assert [list(r) for r in rows] == [['forward', 'state', 'nodes', 'took_us', 'loss.value', 'when', 'when_us']] * 12
assert all(r['when_us'] // 1000000 == r['when'] for r in rows)
assert [r['forward'] for r in rows] == list(range(12))
assert rows[0]['loss.value'] == 2.1 and rows[1]['loss.value'] == 1.9600000000000002
assert all(type(r['loss.value']) is float for r in rows)  # told a real, read a real
assert [r['loss.value'] for r in rows] == losses()
assert all(r['state'] == 'ok' and r['nodes'] == 3 for r in rows)
assert all(type(r['took_us']) is int and type(r['when']) is int for r in rows)"
  soma 0 forwards plain --store "$STORE" --json
  json "
assert [list(r) for r in rows] == [['forward', 'state', 'nodes', 'took_us', 'when', 'when_us']] * 3
assert [r['state'] for r in rows] == ['ok', 'broke', 'ok']"
  ;;

curve_scan)
  soma 0 curve tuesday loss --store "$STORE"
  no_err
  expect_out "# curve of loss over run tuesday: scan (one scan of records)
forward    value
      0      2.1
      1     1.96
      2   1.8298
      3  1.70871
      4   1.5961
      5  1.49138
      6  1.39398
      7   1.3034
      8  1.21916
      9  1.14082
     10  1.06796
     11  1.00021"
  # fact.field names the same series.
  cp "$T/out" "$T/loss"
  soma 0 curve tuesday loss.value --store "$STORE"
  diff <(tail -n +2 "$T/loss") <(tail -n +2 "$T/out") >&2 || fail "loss.value differs from loss"
  ;;

curve_fetch)
  soma 0 curve plain acc --store "$STORE"
  no_err
  expect_out "# curve of acc over run plain: fetch (a fetch per forward)
forward  value
      0    0.5
      1   0.25
      2   0.75"
  # Nobody told it: an error naming the series the run has, and where to look.
  expect_usage_error "no forward of run 'tuesday' told 'nothing'; its series are loss (\`soma facts tuesday 0\` shows what a forward told)" \
    curve tuesday nothing --store "$STORE"
  expect_usage_error "no forward of run 'plain' told 'loss'; its series are acc (\`soma facts plain 0\` shows what a forward told)" \
    curve plain loss --store "$STORE"
  ;;

curve_json)
  soma 0 curve tuesday loss --store "$STORE" --json
  no_err
  json "$LOSSES
assert [list(p) for p in rows] == [['forward', 'value']] * 12
assert [(p['forward'], p['value']) for p in rows] == list(enumerate(losses()))
assert all(type(p['value']) is float for p in rows)"
  soma 0 curve plain acc --store "$STORE" --json
  no_err
  json "assert rows == [{'forward': 0, 'value': 0.5}, {'forward': 1, 'value': 0.25}, {'forward': 2, 'value': 0.75}]"
  soma 2 curve tuesday nothing --store "$STORE" --json
  no_out
  ;;

curve_csv)
  # One line per point under a header, each value every digit it needs to
  # read back the same: what --json says, so nothing is lost to a rounding.
  soma 0 curve tuesday loss --store "$STORE" --csv
  no_err
  expect_out "forward,value
0,2.1
1,1.9600000000000002
2,1.8298000000000003
3,1.7087140000000003
4,1.5961040200000003
5,1.4913767386000003
6,1.3939803668980004
7,1.3034017412151404
8,1.2191636193300806
9,1.140822165976975
10,1.0679646143585868
11,1.0002070913534857"
  for args in "tuesday loss" "plain acc"; do
    soma 0 curve $args --store "$STORE" --csv
    cp "$T/out" "$T/csv"
    soma 0 curve $args --store "$STORE" --json
    python3 - "$T/out" "$T/csv" <<'PY' || fail "curve $args --csv is not its --json's rows"
import csv, json, sys
rows = json.load(open(sys.argv[1]))
lines = list(csv.reader(open(sys.argv[2], newline="")))
assert lines[0] == ["forward", "value"], lines[0]
assert [(int(f), float(v)) for f, v in lines[1:]] == [(r["forward"], r["value"]) for r in rows]
PY
  done
  # Nobody told it: an error, as without --csv.
  soma 2 curve tuesday nothing --store "$STORE" --csv
  no_out
  expect_usage_error "--json and --csv are two ways to print the same rows: give one; \`soma curve --help\` says how it goes" \
    curve tuesday loss --store "$STORE" --csv --json
  ;;

compare)
  # tuesday (12 forwards) against plain (3; score failed once), node by node.
  soma 0 compare tuesday plain --store "$STORE"
  no_err
  [ "$(head -1 "$T/out")" = "# A: tuesday, B: plain; diff: B - A" ] || fail "the first line names A and B"
  [ "$(sed -n 2p "$T/out")" = "# params (A | B): lr 0.05 | 0.5, seed 7 | -" ] \
    || fail "the second line sets the runs' params side by side: $(sed -n 2p "$T/out")"
  tail -n +3 "$T/out" >"$T/table" && mv "$T/table" "$T/out"
  table LRRRRRRRRRRRRRRR <<EOF
node	a_mean	b_mean	diff_mean	a_took	b_took	diff_took	a_ran	b_ran	diff_ran	a_recalled	b_recalled	diff_recalled	a_failed	b_failed	diff_failed
tokenize	~	~	±	~	~	±	12	3	-9	0	0	0	0	0	0
embed	~	~	±	~	~	±	12	3	-9	0	0	0	0	0	0
score	~	~	±	~	~	±	12	2	-10	0	0	0	0	1	+1
EOF
  ;;

compare_json)
  # The numbers are soma nodes' of each run, and the difference B - A.
  soma 0 nodes tuesday --store "$STORE" --json && cp "$T/out" "$T/a.json"
  soma 0 nodes plain --store "$STORE" --json && cp "$T/out" "$T/b.json"
  soma 0 compare tuesday plain --store "$STORE" --json
  no_err
  python3 -c "import json, sys
c = json.load(open(sys.argv[1]))
a = {r['node']: r for r in json.load(open(sys.argv[2]))}
b = {r['node']: r for r in json.load(open(sys.argv[3]))}
assert list(c) == ['a', 'b', 'params', 'nodes'], list(c)
assert (c['a'], c['b']) == ('tuesday', 'plain'), c
assert c['params'] == [{'param': 'lr', 'a': 0.05, 'b': 0.5}, {'param': 'seed', 'a': 7, 'b': None}], c['params']
assert [n['node'] for n in c['nodes']] == ['tokenize', 'embed', 'score'], c['nodes']
keys = ['ran', 'recalled', 'failed', 'took_us', 'mean_us']
for n in c['nodes']:
    for side, rows in (('a', a), ('b', b)):
        assert n[side] == {k: rows[n['node']][k] for k in keys}, (side, n)
    assert n['difference'] == {k: n['b'][k] - n['a'][k] for k in keys}, n
" "$T/out" "$T/a.json" "$T/b.json" || fail "the JSON is not soma nodes' of each run"
  ;;

compare_csv)
  soma 0 compare tuesday plain --store "$STORE" --json && cp "$T/out" "$T/c.json"
  soma 0 compare tuesday plain --store "$STORE" --csv
  no_err
  python3 -c "import csv, json, sys
c = json.load(open(sys.argv[2]))
rows = list(csv.reader(open(sys.argv[1])))
measures = ['mean_us', 'took_us', 'ran', 'recalled', 'failed']
assert rows[0] == ['node'] + [s + m for m in measures for s in ('a_', 'b_', 'diff_')], rows[0]
assert len(rows) == 1 + len(c['nodes'])
for row, n in zip(rows[1:], c['nodes']):
    assert row[0] == n['node']
    got = [float(x) for x in row[1:]]
    want = [n[s][m] for m in measures for s in ('a', 'b', 'difference')]
    assert all(abs(g - w) <= 1e-5 * max(1, abs(w)) for g, w in zip(got, want)), (row, n)
" "$T/out" "$T/c.json" || fail "the CSV is not the JSON's numbers"
  expect_usage_error "--json and --csv are two ways to print the same rows: give one; \`soma compare --help\` says how it goes" \
    compare tuesday plain --store "$STORE" --csv --json
  ;;

compare_errors)
  nope="no run 'nope' in the store '$STORE'; \`soma runs\` lists the runs it holds"
  expect_usage_error "$nope" compare nope plain --store "$STORE"
  expect_usage_error "$nope" compare tuesday nope --store "$STORE" --json
  expect_usage_error "$nope" compare tuesday nope --store "$STORE" --csv
  error_starting "RUN_B is required" compare tuesday --store "$STORE"
  ;;

facts)
  soma 0 facts tuesday 0 --store "$STORE"
  no_err
  sed -E -i 's/"(began_us|took_us)":"[0-9]+"/"\1":"#"/g' "$T/out"
  expect_out '{"fact":"ran","node":"tokenize","began_us":"#","took_us":"#"}
{"fact":"ran","node":"embed","began_us":"#","took_us":"#"}
{"fact":"ran","node":"score","began_us":"#","took_us":"#"}
{"fact":"finished","took_us":"#"}
{"fact":"loss","value":"2.1"}'
  soma 0 facts tuesday 11 --store "$STORE"
  [ "$(tail -1 "$T/out")" = '{"fact":"loss","value":"1.0002070913534857"}' ] ||
    fail "forward 11 should end with its loss"
  ;;

facts_broke)
  soma 0 facts plain 1 --store "$STORE"
  no_err
  sed -E -i 's/"(began_us|took_us)":"[0-9]+"/"\1":"#"/g' "$T/out"
  expect_out '{"fact":"ran","node":"tokenize","began_us":"#","took_us":"#"}
{"fact":"ran","node":"embed","began_us":"#","took_us":"#"}
{"fact":"failed","node":"score","error":"nothing to score: the text had no words","began_us":"#","took_us":"#"}
{"fact":"broke","node":"score","error":"nothing to score: the text had no words","took_us":"#"}
{"fact":"acc","value":"0.25"}'
  ;;

facts_json)
  soma 0 facts tuesday 0 --store "$STORE"
  cp "$T/out" "$T/lines"
  soma 0 facts tuesday 0 --store "$STORE" --json
  no_err
  json "
assert [f['fact'] for f in rows] == ['ran', 'ran', 'ran', 'finished', 'loss']
assert [list(f) for f in rows[:3]] == [['fact', 'node', 'began_us', 'took_us']] * 3
assert [f['node'] for f in rows[:3]] == ['tokenize', 'embed', 'score']
assert rows[4] == {'fact': 'loss', 'value': 2.1}
# Typed: a number told is a JSON number of its kind, a text a string.
assert all(type(f['node']) is str and type(f['began_us']) is int and type(f['took_us']) is int
           for f in rows[:3])
assert type(rows[3]['took_us']) is int and type(rows[4]['value']) is float
# The human form is the same objects, one a line, every value the text a
# person reads (as soma::print writes it).
human = lambda f: {k: v if type(v) is str else json.dumps(v) for k, v in f.items()}
assert [human(f) for f in rows] == [json.loads(l) for l in open('$T/lines')]"
  ;;

nodes)
  soma 0 nodes tuesday --store "$STORE"
  no_err
  table LRRRRLLR <<EOF
node	ran	recalled	failed	took	hosts	devices	mean
tokenize	12	0	0	~	-	-	~
embed	12	0	0	~	-	-	~
score	12	0	0	~	-	-	~
EOF
  soma 0 nodes plain --store "$STORE"
  table LRRRRLLR <<EOF
node	ran	recalled	failed	took	hosts	devices	mean
tokenize	3	0	0	~	-	-	~
embed	3	0	0	~	-	-	~
score	2	0	1	~	-	-	~
EOF
  ;;

nodes_json)
  soma 0 nodes tuesday --store "$STORE" --json
  no_err
  json "
keys = ['node', 'ran', 'recalled', 'failed', 'took_us', 'hosts', 'devices', 'mean_us']
assert [list(r) for r in rows] == [keys] * 3
assert [(r['node'], r['ran'], r['recalled'], r['failed']) for r in rows] == [
    ('tokenize', 12, 0, 0), ('embed', 12, 0, 0), ('score', 12, 0, 0)]
for r in rows:
    assert r['hosts'] == [] and r['devices'] == [] and type(r['took_us']) is int, r
    assert abs(r['mean_us'] - r['took_us'] / r['ran']) < 1e-9, r"
  ;;

nodes_last)
  soma 0 nodes tuesday --last 2 --store "$STORE"
  no_err
  table LRRRRLLR <<EOF
node	ran	recalled	failed	took	hosts	devices	mean
tokenize	2	0	0	~	-	-	~
embed	2	0	0	~	-	-	~
score	2	0	0	~	-	-	~
EOF
  soma 0 nodes tuesday --last 2 --store "$STORE" --json
  json "assert [r['ran'] for r in rows] == [2, 2, 2]"
  # The tail of plain holds the broken forward.
  soma 0 nodes plain --last 2 --store "$STORE" --json
  json "assert [(r['node'], r['ran'], r['failed']) for r in rows] == [('tokenize', 2, 0), ('embed', 2, 0), ('score', 1, 1)]"
  # More than the run has is all of it.
  soma 0 nodes tuesday --last 1000 --store "$STORE" --json
  json "assert [r['ran'] for r in rows] == [12, 12, 12]"
  # --last 0 asks for nothing and gets it.
  soma 0 nodes tuesday --last 0 --store "$STORE"
  no_out
  no_err
  soma 0 nodes tuesday --last 0 --store "$STORE" --json
  expect_out "[]"
  ;;

env_store)
  SOMA_STORE=$STORE soma 0 runs --json
  json 'assert sorted(r["run"] for r in rows) == ["plain", "tuesday"], rows'
  # --store wins over $SOMA_STORE.
  SOMA_STORE=$T/elsewhere soma 0 runs --store "$STORE" --json
  json 'assert len(rows) == 2'
  # Neither: ./soma-store, which a reader must not create.
  (cd "$T" && env -u SOMA_STORE "$SOMA" runs >"$T/out" 2>"$T/err")
  [ $? -eq 2 ] || fail "soma runs without a store should exit with 2"
  expect_err "soma: no store at 'soma-store': there is no such directory; give the directory a recorder wrote to (--store DIR or \$SOMA_STORE)"
  [ ! -e "$T/soma-store" ] || fail "soma runs created ./soma-store"
  [ ! -e "$T/elsewhere" ] || fail "soma runs created \$SOMA_STORE"
  ;;

missing_store)
  missing="soma: no store at '$T/nothere': there is no such directory; give the directory a recorder wrote to (--store DIR or \$SOMA_STORE)"
  expect_usage_error "${missing#soma: }" runs --store "$T/nothere"
  expect_usage_error "${missing#soma: }" forwards tuesday --store "$T/nothere"
  expect_usage_error "${missing#soma: }" curve tuesday loss --store "$T/nothere"
  expect_usage_error "${missing#soma: }" facts tuesday 0 --store "$T/nothere" --json
  expect_usage_error "${missing#soma: }" nodes tuesday --last 2 --store "$T/nothere"
  [ ! -e "$T/nothere" ] || fail "reading a missing store created its directory"
  # An empty directory is no store either, and stays empty.
  mkdir "$T/empty"
  error_starting "no store at '$T/empty'" runs --store "$T/empty"
  [ -z "$(ls -A "$T/empty")" ] || fail "reading an empty directory wrote into it"
  # A file is no store: said so, not "permission denied".
  echo "not a store" >"$T/afile"
  expect_usage_error "no store at '$T/afile': it is a file, not a directory; give the directory a recorder wrote to (--store DIR or \$SOMA_STORE)" \
    runs --store "$T/afile"
  [ "$(cat "$T/afile")" = "not a store" ] || fail "reading a file as a store changed it"
  ;;

not_a_store)
  mkdir "$T/junk"
  head -c 8192 /dev/zero | tr '\0' 'x' >"$T/junk/data.mdb"
  before=$(sha256sum <"$T/junk/data.mdb")
  error_starting "'$T/junk' holds a data.mdb that is not a soma store" runs --store "$T/junk"
  [ "$(sha256sum <"$T/junk/data.mdb")" = "$before" ] || fail "reading changed a file that is not a store"
  [ ! -e "$T/junk/lock.mdb" ] || fail "reading wrote lock.mdb into a directory that is not a store"
  ;;

unknown_run)
  nope="no run 'nope' in the store '$STORE'; \`soma runs\` lists the runs it holds"
  expect_usage_error "$nope" forwards nope --store "$STORE"
  expect_usage_error "$nope" forwards nope --store "$STORE" --json
  expect_usage_error "$nope" curve nope loss --store "$STORE"
  expect_usage_error "$nope" facts nope 0 --store "$STORE"
  expect_usage_error "$nope" nodes nope --store "$STORE"
  expect_usage_error "$nope" nodes nope --last 2 --store "$STORE"
  expect_usage_error "$nope" nodes nope --last 0 --store "$STORE"
  # A prefix of a run is not the run; the runs near a name are named.
  expect_usage_error "no run 'tues' in the store '$STORE'; did you mean 'tuesday'? (\`soma runs\` lists the runs it holds)" \
    forwards tues --store "$STORE"
  expect_usage_error "no run 'tuesdya' in the store '$STORE'; did you mean 'tuesday'? (\`soma runs\` lists the runs it holds)" \
    nodes tuesdya --store "$STORE"
  expect_usage_error "no run 'plian' in the store '$STORE'; did you mean 'plain'? (\`soma runs\` lists the runs it holds)" \
    compare tuesday plian --store "$STORE"
  # What cannot be a run id at all.
  error_starting "the run id 'a/b'" forwards a/b --store "$STORE"
  error_starting "" forwards "" --store "$STORE"
  ;;

forward_out_of_range)
  expect_usage_error "run 'tuesday' has no forward 12 (it has forwards 0 to 11)" \
    facts tuesday 12 --store "$STORE"
  expect_usage_error "run 'plain' has no forward 18446744073709551615 (it has forwards 0 to 2)" \
    facts plain 18446744073709551615 --store "$STORE" --json
  expect_usage_error "N of \`soma facts RUN N\` (a forward number) must be a whole number, 0 or more; '18446744073709551616' is too large" \
    facts plain 18446744073709551616 --store "$STORE"
  ;;

bad_numbers)
  last="N of \`soma nodes RUN --last N\` must be a whole number, 0 or more"
  expect_usage_error "$last; 'abc' is not a whole number" nodes tuesday --last abc --store "$STORE"
  expect_usage_error "$last; '-1' is negative" nodes tuesday --last -1 --store "$STORE"
  expect_usage_error "$last; '2.5' is not a whole number" nodes tuesday --last 2.5 --store "$STORE"
  expect_usage_error "$last; '' is not a whole number" nodes tuesday --last "" --store "$STORE"
  n="N of \`soma facts RUN N\` (a forward number) must be a whole number, 0 or more"
  expect_usage_error "$n; 'x' is not a whole number" facts tuesday x --store "$STORE"
  expect_usage_error "$n; '-3' is negative" facts tuesday -3 --store "$STORE"
  expect_usage_error "$n; '1e3' is not a whole number" facts tuesday 1e3 --store "$STORE"
  # Checked before the store is opened: a bad number is named even without one.
  expect_usage_error "$n; 'x' is not a whole number" facts tuesday x --store "$T/nothere"
  ;;

unknown_command)
  commands='soma runs | forwards RUN | curve RUN NAME | facts RUN N | nodes RUN [--last N] | compare RUN_A RUN_B | cache ls|clear [--node NAME] | standing | fleet RUN | trials [STUDY] | reclaim STUDY --quiet-over S | health [RUN] [--rules FILE] [--at TIME | --replay FROM..TO [--compare FILE]] [--fail-on firing] | plot progress|spent|machines RUN -o FILE | plot study STUDY -o FILE | plot graph -o FILE PROGRAM | live --run RUN | check | copy FROM DIR | serve [--listen HOST:PORT] | trace RUN [--forward N | --last N] -o FILE | critical RUN [--last N] | delete RUN... [--yes] [--force]'
  expect_usage_error "unknown command 'frobnicate'; the commands are: $commands (\`soma --help\` lists the commands)" \
    frobnicate
  expect_usage_error "unknown command 'run'; did you mean 'runs'? the commands are: $commands (\`soma --help\` lists the commands)" \
    run --store "$STORE"
  expect_usage_error "unknown command 'forwrds'; did you mean 'forwards'? the commands are: $commands (\`soma --help\` lists the commands)" \
    forwrds tuesday --store "$STORE"
  expect_usage_error "unknown option '--bogus' (\`soma --help\` lists the commands)" --bogus
  expect_usage_error "unknown option '--bogus' for soma runs (\`soma runs --help\` says how it goes)" \
    runs --bogus --store "$STORE"
  # A typo of an option names the nearest the command has.
  expect_usage_error "unknown option '--lst' for soma forwards; did you mean '--last'? (\`soma forwards --help\` says how it goes)" \
    forwards tuesday --lst 3 --store "$STORE"
  expect_usage_error "unknown option '--revers' for soma runs; did you mean '--reverse'? (\`soma runs --help\` says how it goes)" \
    runs --revers --store "$STORE"
  # A command of commands names what it was given, and its choices.
  expect_usage_error "soma plot has no 'foo'; it takes one of: progress, spent, machines, study, graph (\`soma plot --help\` says how it goes)" \
    plot foo
  expect_usage_error "soma plot needs one of: progress, spent, machines, study, graph (\`soma plot --help\` says how it goes)" \
    plot
  expect_usage_error "soma cache has no 'frob'; it takes one of: ls, clear (\`soma cache --help\` says how it goes)" \
    cache frob --store "$STORE"
  expect_usage_error "soma cache needs one of: ls, clear (\`soma cache --help\` says how it goes)" \
    cache --store "$STORE"
  ;;

no_command)
  commands='soma runs | forwards RUN | curve RUN NAME | facts RUN N | nodes RUN [--last N] | compare RUN_A RUN_B | cache ls|clear [--node NAME] | standing | fleet RUN | trials [STUDY] | reclaim STUDY --quiet-over S | health [RUN] [--rules FILE] [--at TIME | --replay FROM..TO [--compare FILE]] [--fail-on firing] | plot progress|spent|machines RUN -o FILE | plot study STUDY -o FILE | plot graph -o FILE PROGRAM | live --run RUN | check | copy FROM DIR | serve [--listen HOST:PORT] | trace RUN [--forward N | --last N] -o FILE | critical RUN [--last N] | delete RUN... [--yes] [--force]'
  expect_usage_error "say what to read: $commands (\`soma --help\` lists the commands)"
  expect_usage_error "say what to read: $commands (\`soma --help\` lists the commands)" --json --store "$STORE"
  ;;

missing_argument)
  expect_usage_error "RUN is required; \`soma forwards --help\` says how it goes" forwards --store "$STORE"
  expect_usage_error "NAME is required; \`soma curve --help\` says how it goes" curve tuesday --store "$STORE"
  expect_usage_error "N is required; \`soma facts --help\` says how it goes" facts tuesday --store "$STORE"
  expect_usage_error "RUN is required; \`soma nodes --help\` says how it goes" nodes --last 2 --store "$STORE"
  # live takes RUN or --run RUN: said as its --help shows it.
  expect_usage_error "RUN is required (or --run RUN); \`soma live --help\` says how it goes" live --store "$STORE"
  # What prints no rows does not offer --json or --csv (it refuses them).
  for cmd in live "plot progress" trace delete serve; do
    # shellcheck disable=SC2086
    "$SOMA" $cmd --help >"$T/out" 2>&1
    if grep -qE -- "--json|--csv" "$T/out"; then fail "soma $cmd --help offers --json or --csv"; fi
  done
  "$SOMA" runs --help >"$T/out" 2>&1
  grep -q -- "--json" "$T/out" || fail "soma runs --help does not offer --json"
  # Nor is one offered as the nearest of a typo.
  expect_usage_error "unknown option '--jsonx' for soma live (\`soma live --help\` says how it goes)" \
    live tuesday --jsonx --store "$STORE"
  expect_usage_error "--once looks once and --wait waits for the run: give one" \
    live tuesday --once --wait --store "$STORE"
  expect_usage_error "The following argument was not expected: extra; \`soma standing --help\` says how it goes" \
    standing extra --store "$STORE"
  error_starting "--store" runs --store
  expect_usage_error "--store needs a directory, not an empty text; \`soma runs --help\` says how it goes" \
    runs --store ""
  ;;

damaged)
  before=$(sha256sum <"$DAMAGED/data.mdb")
  record="the record of forward 1 of run 'bad' in the store '$DAMAGED' is damaged"
  blob="the fact blob of forward 2 of run 'bad' in the store '$DAMAGED' is damaged"
  # runs reads each run's totals (kept by its writer), not its records: a
  # damaged record is for forwards and soma check to name.
  soma 0 runs --store "$DAMAGED"
  grep -q '^bad ' "$T/out" || fail "runs should list the run 'bad' from its totals"
  error_starting "$record" forwards bad --store "$DAMAGED" --json
  error_starting "$blob" facts bad 2 --store "$DAMAGED"
  error_starting "$blob" nodes bad --store "$DAMAGED"
  error_starting "$blob" nodes bad --last 1 --store "$DAMAGED"
  error_starting "$blob" curve bad loss --store "$DAMAGED"
  # What is not damaged still reads.
  soma 0 facts bad 1 --store "$DAMAGED"
  [ "$(wc -l <"$T/out")" -eq 4 ] || fail "forward 1's facts should still read"
  soma 0 nodes bad --last 0 --store "$DAMAGED"
  no_out
  # A damaged reading is named; standing reads every machine's latest.
  error_starting "a machine reading in the store '$DAMAGED' is damaged" standing --store "$DAMAGED"
  # fleet reads the run's blobs first, so the run's damage is what it names.
  error_starting "$blob" fleet bad --store "$DAMAGED" --json
  [ "$(sha256sum <"$DAMAGED/data.mdb")" = "$before" ] || fail "reading changed the damaged store"
  ;;

cache)
  # A store of its own: clearing writes, and other cases read theirs.
  "$MAKE_STORE" "$T/cached" --cached || fail "make_store --cached failed"
  soma 0 cache ls --store "$T/cached" --json
  json "assert sorted((r['node'], r['version']) for r in rows) == [('embed', '2')] * 3 + [('tokenize', '1')] * 3, rows"
  json "assert all(r['bytes'] > 0 and r['kept_at'] > 1700000000 for r in rows), rows"
  json "assert {r['type'] for r in rows} == {'Tokenize', 'Embed'}, rows"
  soma 0 cache ls --node embed --store "$T/cached"
  no_err
  [ "$(wc -l <"$T/out")" -eq 4 ] || fail "expected a header and 3 rows"
  head -1 "$T/out" | grep -Eq '^node +type +version +bytes +kept_at$' || fail "wrong header"
  soma 0 cache clear --node embed --store "$T/cached"
  expect_out "forgot 3 kept outputs of node 'embed'"
  no_err
  # Nothing to forget: said on stderr, with where to look.
  soma 0 cache clear --node nosuch --store "$T/cached"
  expect_out "forgot 0 kept outputs of node 'nosuch'"
  expect_err "soma: the cache holds no output of a node named 'nosuch'; \`soma cache ls\` lists the nodes it holds outputs of"
  soma 0 cache ls --store "$T/cached" --json
  json "assert [r['node'] for r in rows] == ['tokenize'] * 3, rows"
  soma 0 cache clear --store "$T/cached" --json
  expect_out '[{"cleared":3}]'
  soma 0 cache ls --store "$T/cached" --json
  expect_out "[]"
  # Clearing never makes a store where a typo pointed.
  expect_usage_error "no store at '$T/nowhere': there is no such directory; give the directory a recorder wrote to (--store DIR or \$SOMA_STORE)" \
    cache clear --store "$T/nowhere"
  [ ! -e "$T/nowhere" ] || fail "cache clear created a store"
  ;;

read_only)
  files=$(ls -A "$STORE")
  before=$(sha256sum <"$STORE/data.mdb")
  for json in "" --json; do
    for args in "runs" "forwards tuesday" "forwards plain" "curve tuesday loss" \
                "curve plain acc" "facts tuesday 0" "facts plain 1" "nodes tuesday" \
                "nodes plain --last 2" "nodes tuesday --last 0"; do
      # shellcheck disable=SC2086
      soma 0 $args $json --store "$STORE"
    done
    for args in "forwards nope" "facts tuesday 99" "nodes nope --last 0" "curve nope loss"; do
      # shellcheck disable=SC2086
      soma 2 $args $json --store "$STORE"
    done
  done
  [ "$(sha256sum <"$STORE/data.mdb")" = "$before" ] || fail "reading changed data.mdb"
  [ "$(ls -A "$STORE")" = "$files" ] || fail "reading added files to the store: $(ls -A "$STORE")"
  ;;

# The fleet store (make_store --fleet): alpha-101 read last at T0 + 10 s,
# beta-202 at T0 + 7.5 s (T0 = 2100-01-01T08:00:00Z); run "remote" sent 3
# slices to w1 (alpha-101) and 1 to w2 (gamma-303, which wrote no readings).
standing)
  soma 0 standing --store "$FLEET"
  no_err
  # alpha-101's latest reading, not its first; quiet_s is behind the newest
  # writer (alpha-101 at 10 s), not behind this test's clock.
  # delta-404 is a claimant of study lr: it shows beside the workers.
  # state: quiet past 3 intervals (none said: 0.5 s each) behind alpha-101.
  # listens and serves: what each worker's reading says of itself.
  table LRRRRRLRLRLLL <<EOF
id	busy	memory	cores	up	served	claims	trials	when	quiet	state	listens	serves
alpha-101	0.25	0.50	8	12.0s	4	-	-	2100-01-01T08:00:10.000Z	0s	reporting	10.0.0.1:4242	Embed,Score
beta-202	0.40	0.30	4	7.50s	0	-	-	2100-01-01T08:00:07.500Z	2.50s	quiet	10.0.0.2:4242	store:/srv/soma
delta-404	0.90	0.20	2	8.00s	0	lr	1	2100-01-01T08:00:08.000Z	2.00s	quiet	-	-
EOF
  SOMA_STORE=$FLEET soma 0 --json standing
  json "assert [r['id'] for r in rows] == ['alpha-101', 'beta-202', 'delta-404']"
  ;;

standing_json)
  soma 0 standing --store "$FLEET" --json
  no_err
  json "
keys = ['id', 'busy', 'memory', 'cores', 'up_us', 'served', 'when_us', 'claims', 'trials', 'listens',
        'serves', 'serves_store', 'quiet_s', 'state']
assert [list(r) for r in rows] == [keys] * 3, rows
t0 = 4102473600 * 10**6
assert rows[0] == {'id': 'alpha-101', 'busy': 0.25, 'memory': 0.5, 'cores': 8, 'up_us': 12000000,
                   'served': 4, 'when_us': t0 + 10**7, 'claims': None, 'trials': 0,
                   'listens': '10.0.0.1:4242', 'serves': ['Embed', 'Score'], 'serves_store': None,
                   'quiet_s': 0.0, 'state': 'reporting'}, rows[0]
assert rows[1] == {'id': 'beta-202', 'busy': 0.4, 'memory': 0.3, 'cores': 4, 'up_us': 7500000,
                   'served': 0, 'when_us': t0 + 7500000, 'claims': None, 'trials': 0,
                   'listens': '10.0.0.2:4242', 'serves': [], 'serves_store': '/srv/soma',
                   'quiet_s': 2.5, 'state': 'quiet'}, rows[1]
assert rows[2] == {'id': 'delta-404', 'busy': 0.9, 'memory': 0.2, 'cores': 2, 'up_us': 8000000,
                   'served': 0, 'when_us': t0 + 8000000, 'claims': 'lr', 'trials': 1,
                   'listens': None, 'serves': [], 'serves_store': None, 'quiet_s': 2.0,
                   'state': 'quiet'}, rows[2]
assert all(type(r[k]) is int for r in rows for k in ('cores', 'up_us', 'served', 'when_us'))"
  ;;

standing_empty)
  # No machine wrote here: the header on stdout, a line that says so on
  # stderr (stdout stays the table), exit 0.
  soma 0 standing --store "$STORE"
  expect_out "id  busy  memory  cores  up  served  claims  trials  when  quiet  state  listens  serves"
  expect_err "soma: no machine has written readings into the store '$STORE'; a worker started with \`soma-node --store DIR --reporting SECONDS\` writes one on that clock"
  soma 0 standing --store "$STORE" --json
  no_err
  expect_out "[]"
  ;;

fleet)
  soma 0 fleet remote --store "$FLEET"
  no_err
  # w1 joined to alpha-101 by its machine facts; busy and served from
  # alpha-101's latest reading (served 4, where the last fact said 3); w2's
  # machine wrote no readings, so its busy and served are its last machine
  # fact's and it has no quiet_s; beta-202 and delta-404 served nothing
  # here, so only --all-machines lists them.
  # waiting_us = left.took_us - the remote ran's took_us: 3 x (1000 - 100), 400 - 50.
  table LLRRRRRLRRL <<EOF
host	machine	slices	took	waiting	busy	served	claims	trials	quiet	state
here	-	0	20.0µs	0s	-	-	-	-	-	-
w1	alpha-101	3	300µs	2.70ms	0.25	4	-	-	0s	reporting
w2	gamma-303	1	50.0µs	350µs	0.75	1	-	-	-	-
EOF
  soma 0 fleet remote --store "$FLEET" --all-machines
  no_err
  table LLRRRRRLRRL <<EOF
host	machine	slices	took	waiting	busy	served	claims	trials	quiet	state
here	-	0	20.0µs	0s	-	-	-	-	-	-
w1	alpha-101	3	300µs	2.70ms	0.25	4	-	-	0s	reporting
w2	gamma-303	1	50.0µs	350µs	0.75	1	-	-	-	-
beta-202	beta-202	0	0s	0s	0.40	0	-	-	2.50s	quiet
delta-404	delta-404	0	0s	0s	0.90	0	lr	1	2.00s	quiet
EOF
  ;;

fleet_json)
  soma 0 fleet remote --store "$FLEET" --json
  no_err
  json "assert [r['host'] for r in rows] == ['here', 'w1', 'w2'], rows"
  soma 0 fleet remote --store "$FLEET" --json --all-machines
  no_err
  json "
keys = ['host', 'machine', 'slices', 'took_us', 'waiting_us', 'busy', 'served', 'quiet_s', 'state',
        'claims', 'trials']
assert [list(r) for r in rows] == [keys] * 5, rows
assert rows == [
    {'host': 'here', 'machine': None, 'slices': 0, 'took_us': 20, 'waiting_us': 0,
     'busy': None, 'served': None, 'quiet_s': None, 'state': None, 'claims': None, 'trials': None},
    {'host': 'w1', 'machine': 'alpha-101', 'slices': 3, 'took_us': 300, 'waiting_us': 2700,
     'busy': 0.25, 'served': 4, 'quiet_s': 0.0, 'state': 'reporting', 'claims': None, 'trials': 0},
    {'host': 'w2', 'machine': 'gamma-303', 'slices': 1, 'took_us': 50, 'waiting_us': 350,
     'busy': 0.75, 'served': 1, 'quiet_s': None, 'state': None, 'claims': None, 'trials': None},
    {'host': 'beta-202', 'machine': 'beta-202', 'slices': 0, 'took_us': 0, 'waiting_us': 0,
     'busy': 0.4, 'served': 0, 'quiet_s': 2.5, 'state': 'quiet', 'claims': None, 'trials': 0},
    {'host': 'delta-404', 'machine': 'delta-404', 'slices': 0, 'took_us': 0, 'waiting_us': 0,
     'busy': 0.9, 'served': 0, 'quiet_s': 2.0, 'state': 'quiet', 'claims': 'lr', 'trials': 1}], rows"
  ;;

# The study lr of the fleet store (make_store --fleet): trial 0 done by
# delta-404; 1 claimed by it after ghost-9 (no readings) was handed back; 2
# let go by it; 3 broke.
trials)
  soma 0 trials --store "$FLEET"
  no_err
  [ "$(head -1 "$T/out")" = "study  trials  waiting  claimed  done  broke  abandoned  function  created" ] \
    || fail "the header differs: $(head -1 "$T/out")"
  [ "$(wc -l <"$T/out")" -eq 2 ] || fail "one study is listed, not $(cat "$T/out")"
  # created: when the study was made, by its writer's clock, UTC.
  grep -qE '^lr +4 +1 +1 +1 +1 +2  sweep +20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' "$T/out" \
    || fail "the row differs: $(tail -1 "$T/out")"
  soma 0 trials --store "$FLEET" --json
  json "
assert rows == [{'study': 'lr', 'trials': 4, 'waiting': 1, 'claimed': 1, 'done': 1, 'broke': 1,
                 'abandoned': 2, 'function': 'sweep', 'created_us': rows[0]['created_us']}], rows
assert type(rows[0]['created_us']) is int"
  # No study yet: the header, and a line on stderr that says so.
  soma 0 trials --store "$STORE"
  expect_out "study  trials  waiting  claimed  done  broke  abandoned  function  created"
  expect_err "soma: the store '$STORE' has no study yet; soma::add_trials makes one (docs/trials.md)"
  ;;

trials_study)
  # One row per attempt; a claimed trial's quiet_s is its claimant's,
  # writer against writer (delta-404 is 2 s behind alpha-101).
  soma 0 trials lr --store "$FLEET"
  no_err
  expect_out "trial  attempt  state      claimant   quiet  run     result              params    error
    0        1  done       delta-404      -  lr.0    loss=0.25,steps=40  lr=0.1    -
    1        1  abandoned  ghost-9        -  lr.1    -                   lr=0.01   handed back: its claimant has no reading in the store (rule: quiet_s over 5.0)
    1        2  claimed    delta-404  2.00s  lr.1.2  -                   lr=0.01   -
    2        1  abandoned  delta-404      -  lr.2    -                   lr=0.001  stopped by hand
    2        -  waiting    -              -  -       -                   lr=0.001  -
    3        1  broke      delta-404      -  lr.3    -                   lr=10     loss is nan at step 3"
  soma 0 --json trials lr --store "$FLEET"
  no_err
  json "
keys = ['trial', 'params', 'state', 'attempt', 'claimant', 'quiet_s', 'claimed_us', 'run', 'ended_us',
        'result', 'error', 'abandoned', 'added_us']
assert [list(r) for r in rows] == [keys] * 4, rows
assert [r['state'] for r in rows] == ['done', 'claimed', 'waiting', 'broke']
assert rows[0]['result'] == {'loss': 0.25, 'steps': 40} and type(rows[0]['result']['steps']) is int
assert rows[0]['params'] == {'lr': 0.1} and rows[0]['quiet_s'] is None
assert rows[1]['quiet_s'] == 2.0 and rows[1]['claimant'] == 'delta-404' and rows[1]['attempt'] == 2
gone = rows[1]['abandoned']
assert len(gone) == 1 and gone[0]['claimant'] == 'ghost-9' and gone[0]['run'] == 'lr.1', gone
assert gone[0]['why'].startswith('handed back: its claimant has no reading'), gone
assert rows[2]['claimant'] is None and rows[2]['run'] is None and rows[2]['abandoned'][0]['why'] == 'stopped by hand'
assert rows[3]['error'] == 'loss is nan at step 3' and rows[3]['result'] == {}"
  ;;

trials_errors)
  error_starting "the store '$FLEET' has no study named 'nope'; it has 'lr' (\`soma trials\` lists them)" \
    trials nope --store "$FLEET"
  error_starting "S of \`soma reclaim STUDY --quiet-over S\` is seconds, 0 or more, not 'soon'; \`soma reclaim --help\` says how it goes" \
    reclaim lr --quiet-over soon --store "$FLEET"
  ;;

reclaim)
  # Writes: on a copy. delta-404 is 2.0 s behind: over 1 s it is handed back,
  # over 5 s it is not.
  cp -r "$FLEET" "$T/fleet"
  soma 0 reclaim lr --quiet-over 5 --store "$T/fleet"
  no_out
  expect_err "soma: handed back 0 trials of 'lr' whose claimants' readings were more than 5.0 s behind the newest writer's; \`soma trials lr\` shows the attempts"
  soma 0 reclaim lr --quiet-over 1 --store "$T/fleet"
  expect_out "handed back trial 1"
  soma 0 --json trials lr --store "$T/fleet"
  json "
assert rows[1]['state'] == 'waiting', rows[1]
assert [a['claimant'] for a in rows[1]['abandoned']] == ['ghost-9', 'delta-404']
assert 'readings were 2.0 s behind the newest writer' in rows[1]['abandoned'][1]['why'], rows[1]"
  # It never creates a store where a typo pointed.
  soma 2 reclaim lr --quiet-over 1 --store "$T/nowhere"
  [ ! -e "$T/nowhere" ] || fail "reclaim created a store"
  ;;

fleet_here)
  # A run that sent nothing away, in a store nobody wrote readings to.
  soma 0 fleet tuesday --store "$STORE"
  no_err
  table LLRRRRRLRRL <<EOF
host	machine	slices	took	waiting	busy	served	claims	trials	quiet	state
here	-	0	~	0s	-	-	-	-	-	-
EOF
  soma 0 fleet tuesday --store "$STORE" --json
  json "assert len(rows) == 1 and rows[0]['host'] == 'here' and rows[0]['machine'] is None, rows"
  ;;

critical)
  # The fleet store's trips carry no worker's stamps (a soma before them):
  # no clock is estimated, and the slowest remote node never ran here.
  soma 0 critical remote --store "$FLEET" --json
  no_err
  python3 -c "import json, sys
r = json.load(open(sys.argv[1]))
assert list(r) == ['run', 'forwards', 'first', 'last', 'took_us', 'clocks', 'shares', 'nodes', 'slowest', 'worst_gap'], r
assert (r['run'], r['forwards'], r['first'], r['last'], r['clocks']) == ('remote', 4, 0, 3, []), r
assert sum(x['took_us'] for x in r['shares']) == r['took_us'], r
assert r['slowest'] == {'node': 'b', 'host': 'w1', 'remote': 3, 'remote_mean_us': 100.0, 'trip_mean_us': 1000.0,
                        'here': 0, 'here_mean_us': 0.0, 'took_mean_us': r['took_us'] / 4, 'estimate_mean_us': None}, r
assert r['worst_gap'] == 0, r" "$T/out" || fail "the JSON differs"
  soma 0 critical remote --store "$FLEET"
  no_err
  grep -qF "run 'remote': forwards 0..3 (4)" "$T/out" || fail "no head line"
  grep -qF "the slowest remote node, b at w1, ran there in 3 forwards (mean 100µs, its trips 1.00ms); it never ran here" \
    "$T/out" || fail "no what-if"
  expect_usage_error "no run 'nope' in the store '$FLEET'; \`soma runs\` lists the runs it holds" \
    critical nope --store "$FLEET"
  expect_usage_error "N of \`soma critical RUN --last N\` is how many forwards to read: 1 or more, not 0" \
    critical remote --last 0 --store "$FLEET"
  expect_usage_error "\`soma critical\` answers with several tables, which CSV cannot hold; use --json" \
    critical remote --csv --store "$FLEET"
  expect_usage_error "RUN is required; \`soma critical --help\` says how it goes" critical --store "$FLEET"
  ;;
fleet_errors)
  expect_usage_error "no run 'nope' in the store '$FLEET'; \`soma runs\` lists the runs it holds" \
    fleet nope --store "$FLEET"
  expect_usage_error "no run 'nope' in the store '$FLEET'; \`soma runs\` lists the runs it holds" \
    fleet nope --store "$FLEET" --json
  # A run of another store is not this store's run, readings or not.
  expect_usage_error "no run 'tuesday' in the store '$FLEET'; \`soma runs\` lists the runs it holds" \
    fleet tuesday --store "$FLEET"
  error_starting "the run id 'a/b'" fleet a/b --store "$FLEET"
  expect_usage_error "RUN is required; \`soma fleet --help\` says how it goes" fleet --store "$FLEET"
  expect_usage_error "The following argument was not expected: remote; \`soma standing --help\` says how it goes" \
    standing remote --store "$FLEET"
  missing="no store at '$T/nothere': there is no such directory; give the directory a recorder wrote to (--store DIR or \$SOMA_STORE)"
  expect_usage_error "$missing" standing --store "$T/nothere"
  expect_usage_error "$missing" fleet remote --store "$T/nothere" --json
  [ ! -e "$T/nothere" ] || fail "reading a missing store created its directory"
  # Reading the fleet changes nothing.
  files=$(ls -A "$FLEET")
  before=$(sha256sum <"$FLEET/data.mdb")
  for json in "" --json; do
    # shellcheck disable=SC2086
    soma 0 standing $json --store "$FLEET"
    # shellcheck disable=SC2086
    soma 0 fleet remote $json --store "$FLEET"
    # shellcheck disable=SC2086
    soma 2 fleet nope $json --store "$FLEET"
  done
  [ "$(sha256sum <"$FLEET/data.mdb")" = "$before" ] || fail "reading the fleet changed data.mdb"
  [ "$(ls -A "$FLEET")" = "$files" ] || fail "reading the fleet added files: $(ls -A "$FLEET")"
  ;;

*)
  fail "no case '$case_'"
  ;;
esac
exit 0
