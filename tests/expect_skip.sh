#!/usr/bin/env bash
# expect_skip.sh PROGRAM ARGS...: passes when PROGRAM exits 77, the code a
# test that cannot run here exits with (CTest's SKIP_RETURN_CODE reports it
# as Not Run; skipping.hpp), and says on a SKIPPED line why. It tests the
# skip itself on a machine where the case would run, the probe told to say
# no (e.g. SOMA_TEST_NO_NETNS=1).
set -u
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 77 ] || { echo "FAIL: expected exit 77 (skipped), got $rc" >&2; exit 1; }
grep -q 'SKIPPED: .*: .' <<<"$out" || { echo "FAIL: exit 77 without a SKIPPED line that says why" >&2; exit 1; }
exit 0
