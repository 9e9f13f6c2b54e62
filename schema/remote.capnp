# What a client and a soma-node worker say to each other (docs/remote.md).
# CAF's middleman carries these bytes as std::string payloads; every field is
# documented in docs/formats.md. Fields are only ever added.
@0xb1f4c2d9e7a03c55;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("soma::schema");

using Soma = import "soma.capnp";

# One node of a slice: what it is called, what defines it.
struct SliceNode {
  type @0 :Text;        # its C++ type, the name a node library lists it under
  name @1 :Text;        # the graph's name for it: what its facts say
  definition @2 :Text;  # SHA-256 (hex) of the node library that defines the type
  library @3 :Text;     # that library's file name, said in errors
  state @4 :Data;       # the node's fields, encoded by its codec (empty: it has none)
}

# Consecutive nodes of one graph at one host. The value they start from
# travels beside it in the same CAF message, as the value codec wrote it.
struct Slice {
  nodes @0 :List(SliceNode);
  input @1 :Data;       # unused since format 2 (the value travels beside the slice)
}

# Why a slice did not give a value.
enum Refusal {
  none @0;
  nodeFailed @1;        # a node threw: its failed fact is in facts
  unknownNode @2;       # the worker has no definition of a type (mode project)
  needsCode @3;         # the worker has no definition yet: ship it (mode network)
  conflict @4;          # the worker knows the type under another definition
  badSlice @5;          # the bytes were not a slice, or a value did not decode
}

# What a worker answers to a slice.
struct SliceResult {
  facts @0 :List(Soma.Fact);  # everything that happened over there, in order
  output @1 :Data;            # unused since format 2 (the output travels beside it)
  refusal @2 :Refusal;
  node @3 :Text;              # the graph's name of the node concerned
  error @4 :Text;             # what went wrong, in words
  missing @5 :List(Text);     # needsCode: the definitions (hashes) to ship
  # The worker's clock: when its session took the slice (unix µs), and how
  # long it held it (µs, until this answer was made). 0 from a soma before
  # them. The client puts both in the trip's `left` fact (docs/critical.md).
  takenUs @6 :Int64;
  heldUs @7 :Int64;
}

# A store served by soma-node --serve-store, written through soma://host:port.

# One forward a recorder holds until it is written.
struct HeldForward {
  id @0 :UInt64;          # the engine's forward id in the recorder's process
  hasNumber @1 :Bool;
  number @2 :UInt64;      # its n in the run, when already given
  facts @3 :List(Soma.Fact);
  state @4 :Soma.State;
  tookUs @5 :Int64;
  when @6 :Int64;         # unix seconds when the recorder saw its first fact
  whenSubUs @7 :UInt32;   # and microseconds past it
}

# A batch of one recorder's forwards, written by the server as if local.
struct RecordWrite {
  recorder @0 :UInt64;    # which recorder of the client: one writer each
  run @1 :Text;
  summarising @2 :List(Text);
  overwrite @3 :Bool;
  batch @4 :UInt32;
  forwards @5 :List(HeldForward);
  closing @6 :Bool;       # the recorder's last batch: once written, its run is marked ended
  params @7 :List(Soma.Named);  # what the run was
  tags @8 :List(Text);          # words to find it by
  client @9 :Text;              # the client's machine id (hostname-pid): the run's writer's client
}

# What the write numbered, and why it stopped short when it did.
struct RecordNumbers {
  ids @0 :List(UInt64);
  numbers @1 :List(UInt64);
  error @2 :Text;
  hasError @3 :Bool;
}

# A reader's copy of a served store, fetched in bounded parts.
struct SnapshotAsk {
  offset @0 :UInt64;      # 0: make a new copy and send its first part
}

struct SnapshotPart {
  txn @0 :UInt64;         # the server's last transaction when the copy was made
  size @1 :UInt64;        # the copy's whole size in bytes
  offset @2 :UInt64;      # where these bytes sit in it
  bytes @3 :Data;         # at most 4 MiB
}

# The server's last committed transaction: a reader's copy as new as it needs
# no new copy.
struct StoreVersion {
  txn @0 :UInt64;
}

# The cache of a served store, asked and written by a client's cached nodes.
struct CacheAsk {
  key @0 :Data;
  type @1 :Text;
  node @2 :Text;
  version @3 :Text;
}

struct CacheAnswer {
  found @0 :Bool;
  output @1 :Data;
}

struct CacheKeep {
  ask @0 :CacheAsk;
  output @1 :Data;
  hasLimit @2 :Bool;      # the client handle's cache limit, which the server keeps within
  limit @3 :UInt64;
}

struct CacheKept {
  kept @0 :Bool;
}

# The trials of a served store (docs/trials.md), claimed and ended by
# claimants elsewhere in one write transaction each on the server.
struct TrialParams {
  params @0 :List(Soma.Named);
}

struct TrialsAdd {
  study @0 :Text;
  function @1 :Text;             # kept when the study is new
  trials @2 :List(TrialParams);
}

# The trials numbered by an add, or handed back by a reclaim.
struct TrialNumbers {
  numbers @0 :List(UInt64);
}

struct ClaimAsk {
  study @0 :Text;
  claimant @1 :Text;
  waitMs @2 :UInt32;  # how long the server may hold the ask for a trial to come (at most 1000)
}

struct ClaimAnswer {
  claimed @0 :Bool;
  trial @1 :Soma.Trial;
}

# A claimant ends its attempt: done, broke, or let go (state waiting).
struct TrialEnd {
  study @0 :Text;
  number @1 :UInt64;
  attempt @2 :UInt32;
  claimant @3 :Text;
  state @4 :Soma.TrialState;
  result @5 :List(Soma.Named);
  error @6 :Text;               # broke: the error; waiting: why it was let go
}

struct TrialEnded {
  ok @0 :Bool;
  why @1 :Text;  # when not ok: why the end was not kept
}

struct ReclaimAsk {
  study @0 :Text;
  quietOverS @1 :Float64;
}

# What "trial_end_claim" answers to a TrialEnd: whether the end was kept, and
# the trial then claimed for the same claimant (one write transaction).
struct TrialEndedClaimed {
  ended @0 :TrialEnded;
  next @1 :ClaimAnswer;
}

# Readers' questions to a served store, answered on the host that holds it
# (soma/store/answers.hpp; docs/fleet.md): the op names the question, Ask
# carries what it needs, and each answer is one of the structs after it.
# Values kept in the store travel as the store keeps them (key and sealed
# bytes), so the client checks their seals as a local reader does.
struct Ask {
  run @0 :Text;
  name @1 :Text;        # a curve's name, a study, a machine id, a cache entry's node
  from @2 :UInt64;
  count @3 :UInt64;     # capped by the server at its part's limit
  hasAfter @4 :Bool;
  after @5 :Data;       # a run, a machine id or a cache key to go on after
  hasAt @6 :Bool;
  at @7 :Int64;         # tails: unix seconds; readings: microseconds
  last @8 :UInt64;      # tails: forwards per run
  facts @9 :UInt64;     # tails: fact blobs per run
  hasRun @10 :Bool;     # tails: only `run`
  hasName @11 :Bool;    # the cache: only `name`'s entries
  hasBefore @12 :Bool;  # tails: only forwards numbered below `before`
  before @13 :UInt64;
  times @14 :Bool;      # a curve: each point's forward's time too (a soma before 0.5 sends none)
}

struct Stored {
  key @0 :Data;
  value @1 :Data;
}

struct RunRow {
  run @0 :Text;
  forwards @1 :UInt64;
  broke @2 :UInt64;
  tookUs @3 :Int64;
  first @4 :Int64;
  last @5 :Int64;
  params @6 :List(Soma.Named);
  tags @7 :List(Text);
  status @8 :RunStatus;   # judged on the server's machine
  how @9 :Text;           # how the status is known
  endedUs @10 :Int64;     # when its recorder closed it, if `ended`
  ended @11 :Bool;
  trial @12 :RunTrial;    # the trial it was recorded for; null: none
  executions @13 :List(Soma.Execution);  # who wrote it, one after another; empty: an older server, or not known
  values @14 :List(Soma.ValueRange);     # its summarised numbers over the run; empty: none, or an older server
  durationUs @15 :Int64;                 # how long it lasted, wall clock, if `hasDuration`
  hasDuration @16 :Bool;
}

struct RunTrial {
  study @0 :Text;
  number @1 :UInt64;
  state @2 :Text;         # waiting, claimed, done, broke, or "handed back"
  error @3 :Text;
}

enum RunStatus {
  unknown @0;   # also what an older server's rows say
  running @1;
  finished @2;
  died @3;
}

struct RunRows {
  rows @0 :List(RunRow);
}

struct ForwardPart {
  total @0 :UInt64;
  records @1 :List(Data);   # forwards from, from + 1, ...: each record's sealed bytes, its key
                            # (run/<id>/<n>) known to both sides, so not sent
  from @2 :UInt64;
}

struct CurvePart {
  fetch @0 :Bool;       # read from fact blobs (else from records)
  forwards @1 :List(UInt64);
  values @2 :List(Float64);
  next @3 :UInt64;
  total @4 :UInt64;
  whenUs @5 :List(Int64); # each point's forward's when_us (none from a soma before 0.5)
}

struct NodeRow {
  node @0 :Text;
  ran @1 :UInt64;
  recalled @2 :UInt64;
  failed @3 :UInt64;
  tookUs @4 :Int64;
  hosts @5 :List(Text);
  devices @6 :List(Text);
}

struct NodesPart {
  rows @0 :List(NodeRow);
  next @1 :UInt64;
  total @2 :UInt64;
}

struct HostRow {
  host @0 :Text;
  slices @1 :UInt64;
  tookUs @2 :Int64;
  tripsUs @3 :Int64;
}

struct HostsPart {
  rows @0 :List(HostRow);
  machines @1 :List(Soma.Fact);   # each graph host's last machine fact (its host field names it)
  next @2 :UInt64;
  total @3 :UInt64;
}

struct RunTail {
  run @0 :Text;
  first @1 :Int64;
  hasEnded @2 :Bool;
  endedUs @3 :Int64;
  records @4 :List(Stored);
  facts @5 :List(Stored);
}

struct TailsPart {
  tails @0 :List(RunTail);
  hasAfter @1 :Bool;
  after @2 :Text;
  cut @3 :Bool;                   # the last tail goes on before its first record
}

struct Machines {
  ids @0 :List(Text);
  readings @1 :List(Data);        # each a Soma.Reading message
  hasAfter @2 :Bool;              # ask.readings_back_all: a machine is left,
  after @3 :Text;                 # to go on after this one
}

struct StudySummary {
  study @0 :Data;                 # a Soma.Study message
  waiting @1 :UInt64;
  claimed @2 :UInt64;
  done @3 :UInt64;
  broke @4 :UInt64;
  abandoned @5 :UInt64;
}

struct Studies {
  studies @0 :List(StudySummary);
  hasAfter @1 :Bool;              # a study is left: go on after this one
  after @2 :Text;
}

struct Trials {
  trials @0 :List(Data);          # each a Soma.Trial message
}

struct CacheRow {
  key @0 :Data;
  node @1 :Text;
  type @2 :Text;
  version @3 :Text;
  bytes @4 :UInt64;
  keptAt @5 :Int64;
}

struct CacheRows {
  rows @0 :List(CacheRow);
}

struct Damage {
  database @0 :Text;
  key @1 :Text;
  what @2 :Text;
}

struct CheckReport {
  entries @0 :UInt64;
  damaged @1 :List(Damage);
  done @2 :Bool;                  # false: the check goes on there; ask again
  total @3 :UInt64;               # entries the store held when the check began
  complete @4 :Bool;              # done, having walked every entry
}
