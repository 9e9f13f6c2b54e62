#!/usr/bin/env bash
# benchmarks/served/fleet.sh: a fleet simulated on one machine, all of it
# through ONE served store (docs/scale.md, issue 25).
#
# For each W in --workers it makes a fresh store, serves it with
# `soma-node --serve-store DIR --listen 127.0.0.1:0`, starts W workers
# `soma-node --store soma://127.0.0.1:PORT --reporting S` (each writes a
# reading of itself every S seconds, one write transaction each on the
# server), waits until every worker has a reading in the store, then:
#   phase A, workers only, --quiet-window seconds: commits/s and the
#     server's CPU;
#   phase B, R recorders (`bench_served --record`, RATE forwards/s each,
#     a flush every EVERY forwards) for --seconds: commits/s, the server's
#     CPU, the recorders' confirmation times (flush to commit confirmed),
#     and `soma standing` / `soma fleet RUN` timed through soma:// and on
#     the local directory, while it all runs.
# Commits are counted from the store itself: LMDB's last transaction id
# (`mdb_stat -e`, package lmdb-utils) before and after each window, so a
# commit is a write transaction the server's one writer made and synced.
# CPU is /proc/PID/stat utime+stime over the window, in % of one core
# (200 % is the whole of a 2-core machine); memory VmRSS/VmHWM.
#
# Only loopback. Every process it starts is killed on exit, whatever the
# exit. Needs the build (soma-node, soma, bench_served), jq and mdb_stat.
#
#   benchmarks/served/fleet.sh --workers 50,100,200 --recorders 2 --rate 1000 --seconds 30
#
# One table row per W; the columns are explained below the table.

set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${SOMA_BUILD:-$here/../../build}
node=$build/apps/soma-node/soma-node
soma=$build/apps/soma/soma
bench=$build/benchmarks/served/bench_served

workers_list=50
recorders=2
rate=1000
seconds=30
every=100
reporting=0.5
calls=7
quiet_window=10
ramp=90
keep=0

usage() {
  cat <<EOF
usage: $0 [options]
  --workers W[,W...]   workers per fleet, one fleet after another (50)
  --recorders R        recorder processes (bench_served --record) (2)
  --rate F             forwards/s each recorder records (1000)
  --seconds S          how long the recorders record (30)
  --every N            a recorder's flush every N forwards (100)
  --reporting S        the workers' clock, seconds between readings (0.5)
  --calls N            timed calls of each reader (7)
  --quiet-window S     phase A, workers only, seconds (10)
  --ramp S             the most to wait for every worker's first reading (90)
  --keep               keep the scratch directory (stores and logs)
EOF
}

while [ $# -gt 0 ]; do
  case $1 in
    --workers) workers_list=$2; shift 2 ;;
    --recorders) recorders=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --every) every=$2; shift 2 ;;
    --reporting) reporting=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --quiet-window) quiet_window=$2; shift 2 ;;
    --ramp) ramp=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

for p in "$node" "$soma" "$bench"; do
  [ -x "$p" ] || { echo "fleet.sh: $p is not built (SOMA_BUILD=$build)" >&2; exit 2; }
done
for t in jq mdb_stat; do
  command -v $t >/dev/null || { echo "fleet.sh: needs $t (mdb_stat: apt-get install lmdb-utils)" >&2; exit 2; }
done

scratch=$(mktemp -d /tmp/soma-fleet-XXXXXX)
pids=()

# Every process started here, TERM then (after 5 s) KILL, each by its id.
reap() {
  local p alive
  [ ${#pids[@]} -gt 0 ] || return 0
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  pids=()
}
cleanup() {
  reap
  if [ $keep = 1 ]; then echo "fleet.sh: kept $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tick=$(getconf CLK_TCK)
now() { date +%s.%N; }
txn() { mdb_stat -e "$1" | awk '/Last transaction ID/ {print $4}'; }
cpu_ticks() { # utime+stime of the processes given, summed
  local s=0 p v
  for p in "$@"; do
    v=$(awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$p/stat" 2>/dev/null) && s=$((s + v))
  done
  echo $s
}
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
# median/max of the numbers on stdin, and how many calls failed ("Nf")
med_max() {
  sort -g | awk '/^[0-9]+$/ {v[++n] = $1} /fail/ {++f}
    END {if (n) printf "%d/%d", v[int((n + 1) / 2)], v[n]; else printf "-"; if (f) printf "(%df)", f}'
}
# ms one call of "$@" takes (its output dropped); "fail" when it fails
time_ms() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1 || { echo fail; return; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

echo "# fleet.sh on $(nproc) cores, $(free -m | awk '/Mem:/ {print $2}') MB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s%N)
dd if=/dev/zero of="$scratch/sync" bs=4k count=200 oflag=dsync 2>/dev/null
t1=$(date +%s%N)
rm -f "$scratch/sync"
echo "# a synced 4 KiB write here (dd oflag=dsync, 200 of them): $(((t1 - t0) / 200000)) us each"
echo "# recorders: $recorders x $rate forwards/s, a flush every $every; workers report every $reporting s; $seconds s recording"
echo
printf '%5s %6s %8s %7s %7s %7s %8s %8s %9s %9s %11s %11s %11s %11s %6s %10s %6s %9s\n' \
  W up_s rd_c/s A_c/s B_c/s cpuA% cpuB% wrk_cpu% conf_p50 conf_p99 stand_srv stand_loc fleet_srv fleet_loc seen quiet_s retry rss/hwm_MB

for W in ${workers_list//,/ }; do
  run=$scratch/w$W
  mkdir -p "$run/logs"
  store=$run/store

  # The server, its port the first line of its stdout.
  "$node" --serve-store "$store" --listen 127.0.0.1:0 --metrics 127.0.0.1:0 \
    >"$run/server.out" 2>"$run/server.err" &
  server=$!
  pids+=($server)
  port=
  for _ in $(seq 100); do
    port=$(head -n1 "$run/server.out" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "fleet.sh: the server said no port" >&2; cat "$run/server.err" >&2; exit 1; }
  address=soma://127.0.0.1:$port
  metrics=$(sed -n 's/.*metrics at \([^ ]*\).*/\1/p' "$run/server.err" | head -n1)

  # The workers, started 20 a second.
  workers=()
  began=$(now)
  for i in $(seq "$W"); do
    "$node" --store "$address" --reporting "$reporting" --listen 127.0.0.1:0 \
      >/dev/null 2>"$run/logs/$i.err" &
    workers+=($!)
    pids+=($!)
    sleep 0.05
  done

  # Until every worker has a reading in the store (read locally: cheap).
  seen=0
  deadline=$(echo "$(now) + $ramp" | bc)
  while (( $(echo "$(now) < $deadline" | bc) )); do
    seen=$("$soma" standing --json --store "$store" 2>/dev/null | jq length 2>/dev/null || echo 0)
    [ "${seen:-0}" -ge "$W" ] && break
    sleep 1
  done
  up_s=$(echo "$(now) - $began" | bc | xargs printf '%.0f')
  [ "${seen:-0}" -ge "$W" ] || up_s=">$ramp($seen)"
  sleep 3

  # Phase A: workers only.
  t0=$(now); x0=$(txn "$store"); c0=$(cpu_ticks $server)
  sleep "$quiet_window"
  t1=$(now); x1=$(txn "$store"); c1=$(cpu_ticks $server)
  a_cs=$(echo "($x1 - $x0) / ($t1 - $t0)" | bc -l | xargs printf '%.0f')
  cpu_a=$(echo "100 * ($c1 - $c0) / $tick / ($t1 - $t0)" | bc -l | xargs printf '%.0f')

  # Phase B: the recorders too, and the readers timed while they record.
  recs=()
  for r in $(seq "$recorders"); do
    "$bench" --record "$address" "fleet-r$r" "$rate" "$seconds" "$every" \
      >"$run/rec$r.out" 2>"$run/rec$r.err" &
    recs+=($!)
    pids+=($!)
  done
  sleep 2
  t0=$(now); x0=$(txn "$store"); c0=$(cpu_ticks $server); w0=$(cpu_ticks "${workers[@]}")
  : >"$run/stand_srv"; : >"$run/stand_loc"; : >"$run/fleet_srv"; : >"$run/fleet_loc"
  for _ in $(seq "$calls"); do
    time_ms "$soma" standing --json --store "$address" >>"$run/stand_srv"
    time_ms "$soma" standing --json --store "$store" >>"$run/stand_loc"
    time_ms "$soma" fleet fleet-r1 --json --store "$address" >>"$run/fleet_srv"
    time_ms "$soma" fleet fleet-r1 --json --store "$store" >>"$run/fleet_loc"
  done
  rest=$(echo "$seconds - 4 - ($(now) - $t0)" | bc)
  (( $(echo "$rest > 0" | bc) )) && sleep "$rest"
  t1=$(now); x1=$(txn "$store"); c1=$(cpu_ticks $server); w1=$(cpu_ticks "${workers[@]}")
  b_cs=$(echo "($x1 - $x0) / ($t1 - $t0)" | bc -l | xargs printf '%.0f')
  cpu_b=$(echo "100 * ($c1 - $c0) / $tick / ($t1 - $t0)" | bc -l | xargs printf '%.0f')
  wcpu=$(echo "100 * ($w1 - $w0) / $tick / ($t1 - $t0)" | bc -l | xargs printf '%.0f')
  load=$(cut -d' ' -f1 /proc/loadavg)
  avail=$(free -m | awk '/Mem:/ {print $7}')
  threads=$(status_kb $server Threads)
  sessions=$(curl -s --max-time 5 "$metrics" | awk '$1 == "soma_node_sessions_open" {print $2}')
  for p in "${recs[@]}"; do
    for _ in $(seq 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  wait "${recs[@]}" 2>/dev/null
  p50=$(awk '{for (i = 1; i <= NF; ++i) if ($i == "p50") print $(i + 1)}' "$run"/rec*.out | sort -g | tail -n1)
  p99=$(awk '{for (i = 1; i <= NF; ++i) if ($i == "p99") print $(i + 1)}' "$run"/rec*.out | sort -g | tail -n1)

  # Every worker seen, and how far behind the newest writer each is.
  "$soma" standing --json --store "$store" >"$run/standing.json" 2>/dev/null
  seen=$(jq length "$run/standing.json")
  quiet=$(jq -r '[.[].quiet_s] | sort | "\(.[0] // "-")/\(.[length / 2 | floor] // "-")/\(.[-1] // "-")"' "$run/standing.json" \
    | awk -F/ '{printf "%.1f/%.1f/%.1f", $1, $2, $3}')
  retry=$(grep -l "cannot reach" "$run"/logs/*.err 2>/dev/null | wc -l)
  rss=$(( $(status_kb $server VmRSS) / 1024 ))/$(( $(status_kb $server VmHWM) / 1024 ))

  printf '%5s %6s %8s %7s %7s %7s %8s %8s %9s %9s %11s %11s %11s %11s %6s %10s %6s %9s\n' \
    "$W" "$up_s" "$(echo "$W / $reporting" | bc)" "$a_cs" "$b_cs" "$cpu_a" "$cpu_b" "$wcpu" "$p50" "$p99" \
    "$(med_max <"$run/stand_srv")" "$(med_max <"$run/stand_loc")" \
    "$(med_max <"$run/fleet_srv")" "$(med_max <"$run/fleet_loc")" "$seen" "$quiet" "$retry" "$rss"
  {
    echo "#   W=$W: load $load at the end of phase B, $avail MB available, server threads $threads, sessions open $sessions"
    grep -h '^recorder' "$run"/rec*.out | sed 's/^/#   /'
    grep -h -v '^recorder' "$run"/rec*.out "$run"/rec*.err 2>/dev/null | head -n3 | sed 's/^/#   /'
    grep -h "cannot reach\|limit" "$run"/logs/*.err 2>/dev/null | head -n2 | cut -c1-220 | sed 's/^/#   /'
    grep -c "limit" "$run/server.err" | sed 's/^/#   server lines naming the session limit: /'
  } >>"$scratch/notes"
  reap
done

echo
cat "$scratch/notes"
cat <<EOF

W          workers, each a soma-node reporting every $reporting s into the served store
up_s       seconds from the first worker started to every worker's reading in the store
rd_c/s     readings a second the workers should write (W / $reporting), each one commit
A_c/s      commits a second at the server, workers only ($quiet_window s, LMDB's last txn id)
B_c/s      the same with the $recorders recorders recording (their batches are commits too)
cpuA%, cpuB%  the server's CPU in % of one core, phase A and phase B
wrk_cpu%   all the workers' CPU together in phase B, % of one core (they share the machine)
conf_p50, conf_p99  a recorder's flush to the server's confirmation, ms (the worse recorder)
stand_srv, stand_loc  soma standing --json through soma:// and on the directory, ms median/max of $calls
fleet_srv, fleet_loc  soma fleet fleet-r1 --json, the same (a run growing by $rate forwards/s)
seen       machines in soma standing at the end;  quiet_s  min/median/max behind the newest writer
retry      workers that said at least once they could not reach the store
rss/hwm_MB the server's VmRSS / VmHWM at the end
EOF
