# soma's value codec: how a node's input or output is written when it leaves
# a process (into the cache, across the wire). soma::codec<T> (runtime/
# soma/codec.hpp) maps each C++ type onto these few shapes; docs/codec.md
# says which type becomes which shape. Fields are only ever added.
@0xc825f7dd3c5ad1c8;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("soma::schema");

# One value of any supported type, as one of a few shapes.
struct Value {
  union {
    unset @0 :Void;              # never written: an all-zero Value is damage
    none @1 :Void;               # std::monostate
    boolean @2 :Bool;
    int64 @3 :Int64;             # every signed integer type (and char)
    uint64 @4 :UInt64;           # every unsigned integer type
    float64 @5 :Float64;         # float and double
    data @6 :Data;               # std::string and byte vectors (NUL bytes kept)
    list @7 :List(Value);        # containers, optional (0 or 1), pair, tuple,
                                 # map (a list of [key, value] lists), user types
    int64s @8 :List(Int64);      # a vector or array of signed integers
    uint64s @9 :List(UInt64);    # a vector or array of unsigned integers
    float64s @10 :List(Float64); # a vector or array of float or double
  }
}

# What soma::encode<T> writes: the portable name of T (codec<T>::name(), e.g.
# "map<string,int64>") and the value. Written in Cap'n Proto's canonical form.
struct EncodedValue {
  type @0 :Text;
  value @1 :Value;
}
