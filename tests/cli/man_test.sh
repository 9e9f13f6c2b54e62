#!/usr/bin/env bash
# man_test.sh SOMA_1 SOMA_NODE_1: the man pages help2man made say what the
# programs' --help says (their names, the newest subcommands and options).
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
soma=$1 node=$2
grep -q '^\.SH NAME' "$soma" || fail "$soma has no NAME section"
grep -qF "soma \\- read back what soma's recorders wrote" "$soma" || fail "$soma does not name soma"
grep -qx 'serve' "$soma" || fail "$soma lacks the serve subcommand"
grep -qx 'trace' "$soma" || fail "$soma lacks the trace subcommand"
grep -qF 'soma-node \- a soma worker' "$node" || fail "$node does not name soma-node"
grep -qF -- '\-\-metrics' "$node" || fail "$node lacks --metrics"
echo "man pages: every check passed"
