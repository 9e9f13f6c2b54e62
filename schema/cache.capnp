# A kept output of a frozen, cached node (docs/formats.md).
@0xa031be3e0ac6cc08;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("soma::schema");

struct CacheEntry {
  node @0 :Text;      # the node's name in its graph
  type @1 :Text;      # the node's C++ type
  version @2 :Text;   # its frozen version
  keptAt @3 :Int64;   # unix seconds when it was kept
  output @4 :Data;    # the output, as soma::encode wrote it
  keptNs @5 :UInt64;  # nanoseconds since the epoch: its place in the age index
}
