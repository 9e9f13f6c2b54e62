# Helpers shared by soma's own targets (not installed).

# soma_warnings(target): the warnings we hold our own code to.
# (-Wmissing-field-initializers is off: g++ 12 fires it on designated
# initializers such as {.run = "x"}, which leave the rest at their defaults
# on purpose; g++ 14 no longer does.)
function(soma_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter
                                           -Wno-missing-field-initializers)
endfunction()

# The CAF headers every actor unit includes. CAF headers dominate compile time
# (about 6 s a unit without a precompiled header, 2 s with).
set(SOMA_CAF_PCH
  <caf/actor_system.hpp> <caf/actor_system_config.hpp> <caf/typed_actor.hpp>
  <caf/typed_event_based_actor.hpp> <caf/event_based_actor.hpp>
  <caf/scoped_actor.hpp> <caf/send.hpp> <caf/stateful_actor.hpp>)

# soma_caf_pch(target): precompile the CAF headers for a library target.
function(soma_caf_pch target)
  target_precompile_headers(${target} PRIVATE ${SOMA_CAF_PCH})
endfunction()

# Executables compile as PIE, libraries as PIC, and a precompiled header only
# serves units built like it; executables share one built by this host.
function(soma_executable_pch_host)
  if(NOT TARGET soma_pch_host)
    file(WRITE ${PROJECT_BINARY_DIR}/soma_pch_host.cpp "int main() { return 0; }\n")
    add_executable(soma_pch_host EXCLUDE_FROM_ALL ${PROJECT_BINARY_DIR}/soma_pch_host.cpp)
    target_link_libraries(soma_pch_host PRIVATE CAF::core)
    soma_warnings(soma_pch_host)
    target_precompile_headers(soma_pch_host PRIVATE ${SOMA_CAF_PCH})
  endif()
endfunction()

# soma_executable(name sources... [LIBS libs...]): one of soma's own programs
# (examples, tests, benchmarks), warnings on, CAF headers precompiled.
function(soma_executable name)
  cmake_parse_arguments(arg "" "" "LIBS" ${ARGN})
  soma_executable_pch_host()
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${arg_LIBS})
  soma_warnings(${name})
  target_precompile_headers(${name} REUSE_FROM soma_pch_host)
endfunction()

# soma_library(name SOURCES files... LINKS libs... [PRIVATE_LINKS libs...]
#              PUBLIC_HEADERS headers...): one of soma's layers. The layers
# are built into one library, libsoma (soma_link_layers, below), and each
# stays a CMake target of its own so that its dependencies run one way
# (schema <- store <- runtime <- actors):
# - soma_<name>_objects compiles the layer's sources (an OBJECT library);
# - soma_<name> is what building against the layer needs, and nothing to
#   link: its folder on the include path, the layers and libraries of LINKS
#   (soma_web, a static library, links these, and the program it ends in
#   brings libsoma or soma::testing);
# - soma::<name> (installed as such) links libsoma, for a user's project.
# Only PUBLIC_HEADERS (paths under the folder, such as soma/graph.hpp) are
# installed: detail/, wire/ and the other internals stay in the source tree,
# and tests/install checks that they are absent and that no installed header
# includes one. Symbols are hidden by default: what the installed headers
# declare between SOMA_API_BEGIN and SOMA_API_END, and what private headers
# mark SOMA_API_EXPORT, is exported (schema/soma/export.hpp).
function(soma_library name)
  cmake_parse_arguments(arg "" "" "SOURCES;LINKS;PRIVATE_LINKS;PUBLIC_HEADERS" ${ARGN})
  set(api soma_${name})
  add_library(${api} INTERFACE)
  target_include_directories(${api} INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>)
  target_compile_features(${api} INTERFACE cxx_std_20)
  foreach(link ${arg_LINKS})
    if(NOT link MATCHES "^soma_")
      set_property(GLOBAL APPEND PROPERTY SOMA_PUBLIC_LINKS ${link})
    endif()
  endforeach()
  target_link_libraries(${api} INTERFACE ${arg_LINKS})
  foreach(link ${arg_PRIVATE_LINKS})
    target_link_libraries(${api} INTERFACE $<LINK_ONLY:${link}>)
    set_property(GLOBAL APPEND PROPERTY SOMA_PRIVATE_LINKS ${link})
  endforeach()
  set(objects soma_${name}_objects)
  add_library(${objects} OBJECT ${arg_SOURCES})
  set_target_properties(${objects} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${objects} PUBLIC ${api} PRIVATE ${arg_PRIVATE_LINKS})
  soma_warnings(${objects})
  set_property(GLOBAL APPEND PROPERTY SOMA_LAYERS ${name})
  foreach(header ${arg_PUBLIC_HEADERS})
    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${header})
      message(FATAL_ERROR "soma_library(${name}): no public header ${header}")
    endif()
    get_filename_component(dir ${header} DIRECTORY)
    install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
  endforeach()
endfunction()

# soma_link_layers(): after every soma_library, makes
# - soma_library (soma::library): libsoma, shared (BUILD_SHARED_LIBS), from
#   every layer's objects: what users link, through soma::soma or a layer's
#   soma::<name>, and what soma's programs, examples and node libraries link;
# - soma::testing: the same objects as a static archive, linked whole, for
#   soma's tests and benchmarks, which call internals libsoma does not
#   export. A program that loads a node library (built on libsoma) must link
#   libsoma instead: with both, it would hold two copies of soma.
function(soma_link_layers)
  get_property(layers GLOBAL PROPERTY SOMA_LAYERS)
  get_property(public GLOBAL PROPERTY SOMA_PUBLIC_LINKS)
  get_property(private GLOBAL PROPERTY SOMA_PRIVATE_LINKS)
  list(REMOVE_DUPLICATES public)
  set(objects "")
  set(apis "")
  foreach(layer ${layers})
    list(APPEND objects $<TARGET_OBJECTS:soma_${layer}_objects>)
    list(APPEND apis soma_${layer})
  endforeach()
  add_library(soma_library ${objects})
  add_library(soma::library ALIAS soma_library)
  set_target_properties(soma_library PROPERTIES EXPORT_NAME library OUTPUT_NAME soma
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  foreach(api ${apis})
    target_link_libraries(soma_library PUBLIC $<BUILD_INTERFACE:${api}>)
  endforeach()
  foreach(link ${public})
    target_link_libraries(soma_library INTERFACE $<INSTALL_INTERFACE:${link}>)
  endforeach()
  if(NOT BUILD_SHARED_LIBS)
    foreach(link ${private})
      target_link_libraries(soma_library INTERFACE $<INSTALL_INTERFACE:${link}>)
    endforeach()
  endif()
  target_include_directories(soma_library INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(soma_library INTERFACE cxx_std_20)
  foreach(layer ${layers})
    add_library(soma_${layer}_package INTERFACE)
    add_library(soma::${layer} ALIAS soma_${layer}_package)
    set_target_properties(soma_${layer}_package PROPERTIES EXPORT_NAME ${layer})
    target_link_libraries(soma_${layer}_package INTERFACE soma_library)
  endforeach()
  add_library(soma_static STATIC EXCLUDE_FROM_ALL ${objects})
  target_link_libraries(soma_static PUBLIC ${apis})
  add_library(soma_testing INTERFACE)
  add_library(soma::testing ALIAS soma_testing)
  target_link_libraries(soma_testing INTERFACE $<LINK_LIBRARY:WHOLE_ARCHIVE,soma_static>)
  # soma's definitions of CAF's and OpenSSL's functions (docs/architecture.md,
  # "What linking soma changes in your process") must be the program's.
  target_link_options(soma_testing INTERFACE -rdynamic)
endfunction()
