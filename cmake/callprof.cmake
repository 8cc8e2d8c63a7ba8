# Exact-mode instrumentation for your own CMake project:
#
#   include(/path/to/callprof/cmake/callprof.cmake)
#   callprof_instrument(my_target)               # hooks, for `callprof record`
#   callprof_instrument(my_target ALL_INLINED)   # hooks in inlined functions too
#   callprof_instrument(my_target ATTACHABLE)    # no hooks: for `callprof attach PID` (and record)
#
# By default adds the compiler's function entry/exit hooks with the flags docs/modes.md
# recommends: GCC hooks inlined functions too, so code from system headers (the STL) is
# excluded (ALL_INLINED: not excluded); Clang is asked to place its hooks after inlining
# (ALL_INLINED: before). The binary still runs normally without callprof (glibc's hooks do
# nothing); `callprof record` loads the runtime.
#
# ATTACHABLE compiles the target with -fpatchable-function-entry=5 instead (GCC and Clang):
# 5 bytes of nops at every function's entry, listed in the __patchable_function_entries
# section, and no hooks, so the program runs at the plain build's speed until `callprof
# attach PID` patches the nops into calls of its runtime (docs/attach.md, "Programs built
# to be attached"), or `callprof record` does as it starts. Combining it with ALL_INLINED is an error (inlined copies have no entry
# to patch).
function(callprof_instrument target)
  cmake_parse_arguments(ARG "ALL_INLINED;ATTACHABLE" "" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "callprof_instrument(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS} (ALL_INLINED, ATTACHABLE)")
  endif()
  if(ARG_ATTACHABLE AND ARG_ALL_INLINED)
    message(FATAL_ERROR "callprof_instrument(${target}): ATTACHABLE and ALL_INLINED exclude each other (an attachable build has no hooks, and inlined copies no entry to patch)")
  endif()
  if(NOT (CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" OR CMAKE_C_COMPILER_ID MATCHES "GNU|Clang"))
    message(FATAL_ERROR "callprof_instrument: GCC or Clang needed, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(ARG_ATTACHABLE)
    # The same flag for both compilers (GCC: five 1-byte nops; Clang: one 5-byte nop).
    set(flags -fpatchable-function-entry=5)
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_C_COMPILER_ID STREQUAL "GNU")
    set(flags -finstrument-functions)
    if(NOT ARG_ALL_INLINED)
      list(APPEND flags -finstrument-functions-exclude-file-list=/usr/include)
    endif()
  elseif(ARG_ALL_INLINED)  # Clang
    set(flags -finstrument-functions)
  else()
    set(flags -finstrument-functions-after-inlining)
  endif()
  target_compile_options(${target} PRIVATE ${flags})
endfunction()
