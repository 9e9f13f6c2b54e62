# Compiles SOURCE with CXX (syntax only) and checks the outcome.
#   EXPECT=fail: must fail, and the compiler's output must match PATTERN.
#   EXPECT=pass: must compile.
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(
  COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
if(EXPECT STREQUAL "fail")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected ${SOURCE} not to compile, but it did")
  endif()
  if(NOT all MATCHES "${PATTERN}")
    message(FATAL_ERROR "compile failed, but not with /${PATTERN}/:\n${all}")
  endif()
  message(STATUS "refused as expected, matching /${PATTERN}/")
else()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "expected ${SOURCE} to compile:\n${all}")
  endif()
endif()
