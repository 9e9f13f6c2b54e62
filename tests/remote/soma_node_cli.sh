#!/usr/bin/env bash
# soma-node's command line: help, version, bad options, the TLS rule beyond
# loopback, the port on the first line, and a clean stop on SIGTERM.
set -uo pipefail
node=$1
lib=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_line FILE PATTERN: waits for a line of FILE matching PATTERN, as it is
# written, for at most 5 s; fails (status 1) when none came.
wait_line() { grep -q -m1 -E -- "$2" <(timeout 5 tail -F -n +1 "$1" 2>/dev/null); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null' EXIT

"$node" --version | grep -q '^soma-node [0-9]' || fail "--version"
"$node" --help | grep -q -- '--accept-code' || fail "--help lists --accept-code"

"$node" --bogus 2>"$tmp/err"; [ $? -eq 2 ] || fail "an unknown option exits 2"
grep -q "soma-node --help" "$tmp/err" || fail "an unknown option points at --help"

"$node" --listen nonsense 2>"$tmp/err"; [ $? -eq 2 ] || fail "a bad --listen exits 2"
grep -q "'nonsense' is not HOST:PORT" "$tmp/err" || fail "a bad --listen is named: $(cat "$tmp/err")"

"$node" --listen 0.0.0.0:0 2>"$tmp/err"; [ $? -eq 2 ] || fail "0.0.0.0 without TLS exits 2"
grep -q "refusing to listen on 0.0.0.0 without mutual TLS" "$tmp/err" || fail "the TLS rule is said: $(cat "$tmp/err")"

"$node" --tls-cert x 2>"$tmp/err"; [ $? -eq 2 ] || fail "half the TLS options exit 2"
grep -q "needs all three" "$tmp/err" || fail "half the TLS options are explained"

"$node" --nodes /etc/hostname 2>"$tmp/err"; [ $? -eq 2 ] || fail "a file that is no library exits 2"
grep -q "cannot load node library '/etc/hostname'" "$tmp/err" || fail "a bad library is named: $(cat "$tmp/err")"

"$node" --stop-within 0 2>"$tmp/err"; [ $? -eq 2 ] || fail "--stop-within 0 exits 2"
grep -q -- "--stop-within takes seconds, more than 0 and at most 60, not 0" "$tmp/err" || fail "a bad --stop-within is named: $(cat "$tmp/err")"
"$node" --connection-timeout 0.01 2>"$tmp/err"; [ $? -eq 2 ] || fail "--connection-timeout 0.01 exits 2"
grep -q -- "--connection-timeout takes seconds, at least 0.2" "$tmp/err" || fail "a bad --connection-timeout is named: $(cat "$tmp/err")"
"$node" --help | grep -q -- '--stop-within' || fail "--help lists --stop-within"
"$node" --help | grep -q -- '--metrics HOST:PORT' || fail "--help lists --metrics"
"$node" --metrics nonsense 2>"$tmp/err"; [ $? -eq 2 ] || fail "a bad --metrics exits 2"
grep -q -- "--metrics: 'nonsense' is not HOST:PORT" "$tmp/err" || fail "a bad --metrics is named: $(cat "$tmp/err")"

: >"$tmp/out"; : >"$tmp/err" # emptied before the start, so that wait_line never reads the last run's lines
"$node" --nodes "$lib" </dev/null >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_line "$tmp/out" . || fail "no first line within 5 s"
port=$(head -1 "$tmp/out")
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -gt 0 ] || fail "the first line is the port: '$port'"
wait_line "$tmp/err" "listening on 127.0.0.1:$port, serving .*Inc" || fail "it says where and what: $(cat "$tmp/err")"
kill -TERM "$pid"
wait "$pid"; status=$?
pid=
[ $status -eq 0 ] || fail "SIGTERM stops it cleanly (status $status)"
grep -q "stopping (SIGTERM)" "$tmp/err" || fail "it says it stops"
grep -q "stopped$" "$tmp/err" || fail "it says it stopped: $(cat "$tmp/err")"
# Every log line says when, in UTC, to the millisecond, then who.
grep -vqE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z soma-node\[[0-9]+\]: ' "$tmp/err" \
  && fail "a log line without its time: $(grep -vE '^[0-9]{4}-' "$tmp/err" | head -1)"
# Its lifeline is worker::spawn's to give: a variable naming no descriptor
# is refused, and a soma-node started by hand (above: stdin at end of file,
# no lifeline) stopped only on SIGTERM.
SOMA_NODE_LIFELINE=x "$node" --nodes "$lib" >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] || fail "a bad \$SOMA_NODE_LIFELINE exits 2"
grep -q "SOMA_NODE_LIFELINE is 'x', not an open descriptor" "$tmp/err" || fail "a bad lifeline is named: $(cat "$tmp/err")"
# Passed on by a launcher that gave soma-node another stdin, the variable
# names no pipe: no lifeline, and soma-node stops only on SIGTERM.
: >"$tmp/out"; : >"$tmp/err" # emptied before the start, so that wait_line never reads the last run's lines
SOMA_NODE_LIFELINE=0 "$node" --nodes "$lib" </dev/null >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_line "$tmp/err" "listening on" || fail "it did not start within 5 s: $(cat "$tmp/err")"
grep -q 'no lifeline: \$SOMA_NODE_LIFELINE names descriptor 0, which is not a pipe' "$tmp/err" \
  || fail "a lifeline that is no pipe is said: $(cat "$tmp/err")"
kill -TERM "$pid"
wait "$pid"; status=$?
pid=
[ $status -eq 0 ] || fail "SIGTERM stops it cleanly (status $status)"
grep -q "stopping (SIGTERM)" "$tmp/err" || fail "it stopped on SIGTERM, not its stdin: $(cat "$tmp/err")"
# The same library twice is served once; a store where none is is made and said so.
: >"$tmp/out"; : >"$tmp/err" # emptied before the start, so that wait_line never reads the last run's lines
"$node" --nodes "$lib" --nodes "$lib" --serve-store "$tmp/new-store" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_line "$tmp/err" "listening on" || fail "it did not start within 5 s: $(cat "$tmp/err")"
grep -q "there is no store in '$tmp/new-store' yet: serving a new, empty one there" "$tmp/err" \
  || fail "a new store is said: $(cat "$tmp/err")"
line=$(grep "listening on" "$tmp/err")
[ "$(grep -o ' Inc' <<<"$line" | wc -l)" -eq 1 ] || fail "a library given twice is served once: $line"
kill -TERM "$pid"
wait "$pid"
pid=
echo "soma-node cli: all passed"
