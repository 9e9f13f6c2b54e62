# What the cli test scripts share (sourced): fail and soma. They use $case_,
# $T (the case's scratch directory) and $SOMA (the binary under test).

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
