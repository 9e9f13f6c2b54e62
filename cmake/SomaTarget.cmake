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

# soma_library(name SOURCES files... LINKS libs... PUBLIC_HEADERS headers...):
# one of soma's layers, soma_<name>, aliased soma::<name>, exported as
# soma::<name>, its folder on the include path. Only PUBLIC_HEADERS (paths
# under the folder, such as soma/graph.hpp) are installed: detail/, wire/ and
# the other internals stay in the source tree, and tests/install checks that
# they are absent and that no installed header includes one.
# Symbols are hidden by default: what the installed headers declare between
# SOMA_API_BEGIN and SOMA_API_END, and what private headers mark
# SOMA_API_EXPORT, is exported (schema/soma/export.hpp).
function(soma_library name)
  cmake_parse_arguments(arg "" "" "SOURCES;LINKS;PUBLIC_HEADERS" ${ARGN})
  set(target soma_${name})
  add_library(${target} ${arg_SOURCES})
  add_library(soma::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME ${target}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${arg_LINKS})
  target_compile_features(${target} PUBLIC cxx_std_20)
  soma_warnings(${target})
  foreach(header ${arg_PUBLIC_HEADERS})
    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${header})
      message(FATAL_ERROR "soma_library(${name}): no public header ${header}")
    endif()
    get_filename_component(dir ${header} DIRECTORY)
    install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dir})
  endforeach()
endfunction()
