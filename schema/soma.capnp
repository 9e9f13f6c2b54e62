# soma's one encoding of everything that leaves a process.
# Every field is documented in docs/formats.md; change nothing here without
# changing that page. Fields are only ever added (Cap'n Proto's evolution
# rules), so a store written by an older soma stays readable.
@0xdd4e52ac421c5353;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("soma::schema");

# One key/text pair of a fact, as format 1 and soma before format 3 wrote
# it (read only: a text that is exactly how soma writes a number reads as
# that number).
struct Field {
  key @0 :Text;
  value @1 :Text;
}

# The engine's own words (soma/vocabulary.hpp): the names of the facts it
# says and the keys of their fields, written as a number. Only these: a
# user's word (loss, value, acc) is always written as text, beside `none`.
# Only ever appended to; a word this soma does not know is damage.
enum Word {
  none @0;       # not an engine word: the text beside it holds the name
  ran @1;
  failed @2;
  recalled @3;
  kept @4;
  items @5;
  left @6;
  finished @7;
  broke @8;
  machine @9;
  node @10;
  beganUs @11;   # began_us
  tookUs @12;    # took_us
  error @13;
  bytes @14;
  host @15;
  done @16;
  of @17;
  id @18;
  busy @19;
  memory @20;
  cores @21;
  upUs @22;      # up_us
  served @23;
}

# One key/value pair of a fact, typed (format 3, and the wire): a whole
# number, a real or a text (soma::scalar).
struct Entry {
  word @0 :Word;   # the key, when it is an engine word
  key @1 :Text;    # the key otherwise (word = none, keyAt = 0)
  value :union {
    int @2 :Int64;
    real @3 :Float64;
    text @4 :Text;
    bytes @5 :Data;  # a text holding a NUL byte, which Text cannot
  }
  keyAt @6 :UInt32;  # format 4, in a fact blob: the key is word keyAt of its run's words (RunWords)
}

# A fact: a name and ordered key/value pairs (soma::fact).
struct Fact {
  name @0 :Text;            # the name, when it is not an engine word (nor nameAt)
  fields @1 :List(Field);   # format 1 and older peers: every value as text
  word @2 :Word;            # the name, when it is an engine word (format 3)
  entries @3 :List(Entry);  # format 3 and the wire: the typed fields (format 4: those after the held ones)
  # Format 4, in a fact blob: the fact's leading fields, kept in the struct.
  # `held` says which (1 node, 2 began_us, 4 took_us, 8 value); they come
  # first, in that order, then `entries`.
  held @4 :UInt8;
  nodeAt @5 :UInt32;        # node: word nodeAt of the run's words (RunWords)
  beganUs @6 :Int64;        # began_us
  tookUs @7 :Int64;         # took_us
  value @8 :Float64;        # value (a real)
  nameAt @9 :UInt32;        # the name, when it is word nameAt of the run's words
}

# Every fact of one forward, in the order they were told: the blob stored
# beside each record.
struct FactList {
  facts @0 :List(Fact);
}

# A run's words (format 4), at meta/words/<run>: the texts its fact blobs
# name by number (Fact.nameAt, Fact.nodeAt, Entry.keyAt), word n being
# words[n - 1]. Only ever appended to.
struct RunWords {
  words @0 :List(Text);
}

# How a forward ended.
enum State {
  ok @0;      # it finished with a value
  broke @1;   # a node failed
  open @2;    # the recorder closed before the forward ended
}

# The small record kept per forward at run/<id>/<n>.
struct Record {
  forward @0 :UInt64;        # n, counted from 0 within the run
  state @1 :State;
  nodes @2 :UInt32;          # distinct nodes that ran, failed or were recalled
  tookUs @3 :Int64;          # the forward's took_us (finished or broke)
  when @4 :Int64;            # unix seconds when the recorder saw its first fact
  summary @5 :List(Field);   # format 1: summarised facts' fields, flattened: "loss.value"
  values @6 :List(Entry);    # format 3: the same, typed
  whenSubUs @7 :UInt32;      # format 3: microseconds past `when`, 0 to 999,999
}

# What a store knows about one run, beside its records (meta/run/<id>).
struct RunMeta {
  summarising @0 :List(Text);  # fact names every record of the run holds in its summary:
                               # the first recorder sets them, later ones only narrow them
  next @1 :UInt64;             # format 3: the number after the run's last forward, if `hasNext`
  hasNext @2 :Bool;
  endedUs @3 :Int64;           # when its recorder closed (unix µs), if `ended`
  ended @4 :Bool;
  totals @5 :RunTotals;        # the run summed up; null: none kept
  params @6 :List(Named);      # what the run was: given by its recorder, or its trial's
  tags @7 :List(Text);         # words to find it by, given by its recorder
  writer @8 :RunWriter;        # the process that wrote it last; null: a soma before it said
  droppedUs @9 :Int64;         # when a served store's server saw the writing client go
  dropped @10 :Bool;           #   without closing, if set (by the server's clock)
  executions @11 :List(Execution);  # who wrote it, one after another; empty: a soma before it said
}

# One execution of a run: a recorder that wrote it, from its first write on
# (docs/formats.md, RunMeta). A run written once has one.
struct Execution {
  forward @0 :UInt64;  # its first forward's number
  beganUs @1 :Int64;   # its first write, unix µs by its writer's clock; 0: not known
  host @2 :Text;       # where it ran (a served store's client: the client's host); empty: not known
  pid @3 :UInt32;      # its process; 0: not known
  recorder @4 :UInt64; # its recorder's id: a client that reconnects goes on with its execution
}

# The process that writes a run: enough for a reader on the same machine to
# tell whether it still lives (docs/formats.md, RunMeta).
struct RunWriter {
  host @0 :Text;       # its hostname
  boot @1 :Text;       # its machine's boot id (/proc/sys/kernel/random/boot_id)
  pid @2 :UInt32;
  started @3 :UInt64;  # its start, clock ticks after boot (/proc/PID/stat): a pid used again differs
  client @4 :Text;     # a served store's server writing for a client: the client's hostname-pid
}

# A run summed up by its writer (docs/formats.md, RunMeta).
struct RunTotals {
  forwards @0 :UInt64;
  broke @1 :UInt64;
  tookUs @2 :Int64;
  first @3 :Int64;
  last @4 :Int64;
  values @5 :List(ValueRange);  # since 0.4: the summarised numbers over the run
  valuesKept @6 :Bool;          # whether `values` are kept (false: a soma before 0.4 wrote them)
  firstUs @7 :Int64;            # since 0.4: when the first forward began, unix µs
  endUs @8 :Int64;              # since 0.4: when the last forward ended (its when + tookUs), unix µs
}

# A number a run's records summarise, over the run (docs/formats.md, RunMeta).
struct ValueRange {
  key @0 :Text;           # its summary key, flattened: "loss.value"
  last @1 :Float64;       # told by the highest-numbered forward that told it
  lastForward @2 :UInt64;
  min @3 :Float64;
  max @4 :Float64;
}

# A worker's reading of itself, written into the store on its clock
# (soma-node --store S --reporting SECONDS) at readings/r/<id>/<BE64 whenUs>,
# and the newest one again at readings/latest/<id>.
struct Reading {
  id @0 :Text;         # hostname-pid
  busy @1 :Float64;    # the machine's CPU busy fraction since the last reading
  memory @2 :Float64;  # fraction of the machine's memory in use
  cores @3 :UInt32;
  upUs @4 :Int64;      # microseconds since the worker started
  served @5 :UInt64;   # slices served so far
  whenUs @6 :Int64;    # the writer's own wall clock, unix microseconds
  trials @7 :UInt64;   # trials a claimant finished so far (done or broke); 0 for a worker
  claims @8 :Text;     # the study a claimant claims trials from; empty for a worker
  everyUs @9 :Int64;   # the writer's reporting interval, microseconds; 0: it did not say
  listens @10 :Text;   # host:port a worker listens at; empty: it listens nowhere, or did not say
  serves @11 :List(Text);  # the node types a worker serves, as its libraries declare them
  servesStore @12 :Text;   # the directory of the store a worker serves (--serve-store); empty: none
}

# One named value of a trial: a parameter, or a part of its result.
struct Named {
  name @0 :Text;
  value :union {
    int @1 :Int64;
    real @2 :Float64;
    text @3 :Text;
    flag @4 :Bool;
  }
}

enum TrialState {
  waiting @0;  # nobody holds it
  claimed @1;  # a claimant holds it (claimant, claimedUs)
  done @2;     # its function returned (result)
  broke @3;    # its function threw (error)
}

# An attempt at a trial that was handed back (soma::reclaim) or let go by
# its own claimant.
struct Attempt {
  attempt @0 :UInt32;    # 1 for the first claim
  claimant @1 :Text;
  claimedUs @2 :Int64;
  run @3 :Text;
  endedUs @4 :Int64;     # when it was handed back, by the writer's clock
  why @5 :Text;          # the rule and the measured quiet_s, or the claimant's word
}

# One trial of a study, at trials/t/<study>/<BE64 number>.
struct Trial {
  number @0 :UInt64;
  params @1 :List(Named);
  state @2 :TrialState;
  attempt @3 :UInt32;      # the current attempt (0 while never claimed)
  claimant @4 :Text;       # who holds or held the current attempt
  claimedUs @5 :Int64;
  run @6 :Text;            # the current attempt's run
  endedUs @7 :Int64;       # when it was done or broke
  result @8 :List(Named);
  error @9 :Text;
  abandoned @10 :List(Attempt);
  addedUs @11 :Int64;
}

# A study, at trials/s/<study>.
struct Study {
  name @0 :Text;
  createdUs @1 :Int64;
  trials @2 :UInt64;       # how many trials it has (numbered from 0)
  function @3 :Text;       # the trial function a claimant with no other word runs; may be empty
}
