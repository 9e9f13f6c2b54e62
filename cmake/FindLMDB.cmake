# FindLMDB: LMDB as Debian ships it (liblmdb-dev), which has only lmdb.pc.
#
# Imported target: LMDB::lmdb. Result variables: LMDB_FOUND, LMDB_VERSION.
include(FindPackageHandleStandardArgs)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LMDB QUIET lmdb)
endif()
find_path(LMDB_INCLUDE_DIR lmdb.h HINTS ${PC_LMDB_INCLUDE_DIRS})
find_library(LMDB_LIBRARY lmdb HINTS ${PC_LMDB_LIBRARY_DIRS})
set(LMDB_VERSION ${PC_LMDB_VERSION})
find_package_handle_standard_args(LMDB REQUIRED_VARS LMDB_INCLUDE_DIR LMDB_LIBRARY
                                  VERSION_VAR LMDB_VERSION)
if(LMDB_FOUND AND NOT TARGET LMDB::lmdb)
  add_library(LMDB::lmdb UNKNOWN IMPORTED)
  set_target_properties(LMDB::lmdb PROPERTIES
    IMPORTED_LOCATION "${LMDB_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LMDB_INCLUDE_DIR}")
endif()
mark_as_advanced(LMDB_INCLUDE_DIR LMDB_LIBRARY)
