# The API reference: Doxygen over the public headers' `///` comments, with
# the README as its front page and the examples for `\snippet`. A target,
# not part of `all`: `cmake --build build --target soma-reference` writes
# build/reference/html/index.html (docs/building.md). Without Doxygen the
# target is absent and configuring says so once.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "soma: no doxygen, so no soma-reference target (scripts/setup installs it)")
  return()
endif()

set(DOXYGEN_PROJECT_NAME soma)
set(DOXYGEN_PROJECT_NUMBER ${PROJECT_VERSION})
set(DOXYGEN_PROJECT_BRIEF "An actor-model runtime for pipeline graphs that tells you what it is doing")
set(DOXYGEN_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/reference)
set(DOXYGEN_USE_MDFILE_AS_MAINPAGE ${PROJECT_SOURCE_DIR}/README.md)
set(DOXYGEN_EXAMPLE_PATH ${PROJECT_SOURCE_DIR}/apps/examples)
set(DOXYGEN_STRIP_FROM_PATH ${PROJECT_SOURCE_DIR})
# Headers are included as "soma/x.hpp": name them so.
set(DOXYGEN_STRIP_FROM_INC_PATH
    ${PROJECT_SOURCE_DIR}/schema ${PROJECT_SOURCE_DIR}/store ${PROJECT_SOURCE_DIR}/runtime
    ${PROJECT_SOURCE_DIR}/actors ${PROJECT_SOURCE_DIR}/serve ${PROJECT_SOURCE_DIR}/web)
set(DOXYGEN_FILE_PATTERNS *.hpp *.md)
set(DOXYGEN_EXCLUDE_PATTERNS */detail/* */build*/*)
set(DOXYGEN_EXCLUDE_SYMBOLS soma::detail soma::*::detail)
set(DOXYGEN_EXTRACT_ALL YES)
set(DOXYGEN_EXTRACT_PRIVATE NO)
set(DOXYGEN_JAVADOC_AUTOBRIEF YES)
set(DOXYGEN_GENERATE_LATEX NO)
set(DOXYGEN_GENERATE_TREEVIEW YES)
set(DOXYGEN_QUIET YES)
set(DOXYGEN_WARN_IF_UNDOCUMENTED NO)
set(DOXYGEN_WARN_LOGFILE ${PROJECT_BINARY_DIR}/reference/warnings.log)
set(DOXYGEN_MARKDOWN_SUPPORT YES)
set(DOXYGEN_BUILTIN_STL_SUPPORT YES)
set(DOXYGEN_ENABLE_PREPROCESSING YES)

doxygen_add_docs(soma-reference
  ${PROJECT_SOURCE_DIR}/README.md
  ${PROJECT_SOURCE_DIR}/docs
  ${PROJECT_SOURCE_DIR}/schema/soma
  ${PROJECT_SOURCE_DIR}/store/soma
  ${PROJECT_SOURCE_DIR}/runtime/soma
  ${PROJECT_SOURCE_DIR}/actors/soma
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "soma: the API reference into ${PROJECT_BINARY_DIR}/reference/html")
