#!/usr/bin/env bash
# reference_test.sh BUILD: builds the API reference (target soma-reference)
# and checks that the main classes have their pages, with their comments,
# and that Doxygen found nothing wrong in a header.
set -u
build=$1
fail() { echo "FAIL [docs.reference]: $*" >&2; exit 1; }
timeout 600 cmake --build "$build" --target soma-reference >"$build/reference-build.log" 2>&1 \
  || fail "the soma-reference target did not build: $(tail -5 "$build/reference-build.log")"
html=$build/reference/html
[ -f "$html/index.html" ] || fail "no $html/index.html"
# index.html is the README: its first line says what soma is.
grep -q "An actor-model runtime for pipeline graphs" "$html/index.html" || fail "index.html is not the README"
# page TEXT: the class's page exists and holds TEXT from its header's comment.
page() {
  local file=$html/$1
  [ -f "$file" ] || fail "no page $1"
  grep -qF -- "$2" "$file" || fail "$1 does not hold '$2'"
}
page classsoma_1_1store.html "copies share one backend"
page store_8hpp.html "need a local disk"
page classsoma_1_1recorder.html "Owns its actor"
page structsoma_1_1reading.html "host:port a worker listens at"
page classsoma_1_1worker.html "host:port"
# Doxygen's warnings about a header are mistakes in a comment (a \\param
# for a parameter that is not there, a reference to nothing).
if grep -E '\.hpp:[0-9]+: warning' "$build/reference/warnings.log" >"$build/reference-warnings"; then
  fail "Doxygen warns about the headers ($(wc -l <"$build/reference-warnings") lines): $(head -5 "$build/reference-warnings")"
fi
exit 0
