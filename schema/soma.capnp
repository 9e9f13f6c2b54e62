# soma's one encoding of everything that leaves a process.
# Every field is documented in docs/formats.md; change nothing here without
# changing that page. Fields are only ever added (Cap'n Proto's evolution
# rules), so a store written by an older soma stays readable.
@0xdd4e52ac421c5353;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("soma::schema");

# One key/text pair of a fact.
struct Field {
  key @0 :Text;
  value @1 :Text;
}

# A fact: a name and ordered key/text pairs (soma::fact).
struct Fact {
  name @0 :Text;
  fields @1 :List(Field);
}

# Every fact of one forward, in the order they were told: the blob stored
# beside each record.
struct FactList {
  facts @0 :List(Fact);
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
  summary @5 :List(Field);   # summarised facts' fields, flattened: "loss.value"
}

# What a store knows about one run, beside its records (meta/run/<id>).
struct RunMeta {
  summarising @0 :List(Text);  # fact names every record of the run holds in its summary:
                               # the first recorder sets them, later ones only narrow them
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
