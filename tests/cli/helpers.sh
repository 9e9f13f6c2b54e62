# What the cli test scripts share (sourced): python3, fail and soma. They
# use $case_, $T (the case's scratch directory) and $SOMA (the binary under
# test).

# python3: the Python CMake found ($PYTHON3, which tests/cli/CMakeLists.txt
# sets), not whatever `python3` comes first on PATH: a version manager's
# shim there cost about 0.6 s a call on the development VM, and a case calls
# Python dozens of times.
if [ -n "${PYTHON3:-}" ]; then
  python3() { "$PYTHON3" "$@"; }
fi

# fail TEXT: says which case failed and why, with what soma printed (and the
# tmux pane, when there is one), and ends the case.
fail() {
  {
    echo "FAIL [$case_]: $*"
    if [ -f "$T/out" ]; then echo "--- stdout:"; cat "$T/out"; fi
    if [ -f "$T/err" ]; then echo "--- stderr:"; cat "$T/err"; fi
    if [ -f "$T/pane" ]; then echo "--- pane:"; cat "$T/pane"; fi
  } >&2
  exit 1
}

# soma RC ARGS...: runs soma with stdout in $T/out and stderr in $T/err;
# fails unless it exits with RC.
soma() {
  local want=$1
  shift
  "$SOMA" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "\`soma $*\` exited with $rc, expected $want"
}
