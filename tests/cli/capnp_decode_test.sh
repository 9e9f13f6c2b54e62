#!/usr/bin/env bash
# docs/formats.md, "Reading a value yourself": the stock tools read a store of
# format 4 with the schema. Runs the page's very pipeline on a store that
# make_store recorded, and checks that values read typed.
#
#   capnp_decode_test.sh MAKE_STORE SCHEMA_DIR WORK
set -euo pipefail
make_store=$1 schema=$2/soma.capnp work=$3
mkdir -p "$work"
t=$(mktemp -d "$work/capnp-decode.XXXXXX")
trap 'rm -rf "$t"' EXIT
cd "$t"
"$make_store" runs

# value DATABASE KEY-HEX: the value's bytes in hex, as mdb_dump prints it.
value() {
  mdb_dump -s "$1" runs | awk -v k=" $2" 'hit { print; exit } $0 == k { hit = 1 }'
}
decode() { # decode DATABASE KEY-HEX STRUCT
  value "$1" "$2" | tr -d ' ' | tr a-f A-F | basenc --base16 -d | tail -c +9 \
    | capnp decode --packed "$schema" "$3" | tr -s ' \n' ' '
}
fail() { echo "FAIL: $*" >&2; exit 1; }
holds() { grep -Eq "$1" <<<"$3" || fail "$2: $3"; } # holds PATTERN WHY TEXT

# The page's pipeline, word for word: the facts of forward 3 of run tuesday.
key=" $(printf 'run/tuesday/' | od -An -tx1 | tr -d ' \n')0000000000000003"
facts=$(mdb_dump -s facts runs | awk -v k="$key" 'hit { print; exit } $0 == k { hit = 1 }' \
  | tr -d ' ' | tr a-f A-F | basenc --base16 -d | tail -c +9 \
  | capnp decode --packed "$schema" FactList)
echo "$facts"
facts=$(tr -s ' \n' ' ' <<<"$facts") # capnp writes long lists over several lines
holds 'word = ran, held = 7, nodeAt = 1, beganUs = [0-9]+, tookUs = [0-9]+' \
  "no ran fact holding node, began_us and took_us" "$facts"
holds 'word = finished, held = 4, .*tookUs = [1-9][0-9]*' "finished does not hold took_us" "$facts"
holds 'word = none, held = 8, .*value = 1\.[0-9]+, nameAt = 4 \)' \
  "loss is not word 4 holding a real value" "$facts"

# The run's words, which the numbers name.
words=$(decode meta "$(printf 'words/tuesday' | od -An -tx1 | tr -d ' \n')" RunWords)
echo "$words"
holds '^\( words = \["tokenize", "embed", "score", "loss"\] \) ?$' "the run's words" "$words"

# Its record, and the run's metadata.
record=$(decode records "${key# }" Record)
echo "$record"
holds 'forward = 3' "the record is not forward 3" "$record"
holds 'state = ok' "the record's state" "$record"
holds 'key = "loss.value", value = \( ?real = 1\.[0-9]+ ?\)' "the summary is not typed" "$record"
meta=$(decode meta "$(printf 'run/tuesday' | od -An -tx1 | tr -d ' \n')" RunMeta)
echo "$meta"
holds 'summarising = \["loss"\]' "the run's metadata" "$meta"
holds 'next = 12' "the run's metadata has no next = 12" "$meta"
holds 'forwards = 12' "the run's totals" "$meta"
echo "ok"
