# soma_add_node_library(name sources...): a shared library of soma nodes that
# soma-node workers serve (docs/remote.md). One of its sources says which
# nodes it defines with SOMA_NODE_LIBRARY(A, B, ...). Link it into the client
# program too: the client finds a node's library among the libraries it has
# loaded, and both sides must hold the very same file.
function(soma_add_node_library name)
  add_library(${name} SHARED ${ARGN})
  if(TARGET soma::soma)
    target_link_libraries(${name} PUBLIC soma::soma)
  endif()
  # A client may reference nothing of the library (nodes defined inline in a
  # header): keep it linked anyway, or the client could not find it.
  target_link_options(${name} INTERFACE "LINKER:--no-as-needed")
  # Everything but the catalog stays inside the library: two builds of one
  # library loaded into one worker (another client's, shipped) must never
  # share a symbol, or one could run the other's code.
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${name} PRIVATE -fno-gnu-unique)
endfunction()
