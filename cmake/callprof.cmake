# Exact-mode instrumentation for your own CMake project:
#
#   include(/path/to/callprof/cmake/callprof.cmake)
#   callprof_instrument(my_target)          # or: callprof_instrument(my_target ALL_INLINED)
#
# Adds the compiler's function entry/exit hooks with the flags docs/modes.md recommends:
# GCC hooks inlined functions too, so code from system headers (the STL) is excluded;
# Clang is asked to place its hooks after inlining. The binary still runs normally
# without callprof (glibc's hooks do nothing); `callprof record` loads the runtime.
function(callprof_instrument target)
  cmake_parse_arguments(ARG "ALL_INLINED" "" "" ${ARGN})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_C_COMPILER_ID STREQUAL "GNU")
    set(flags -finstrument-functions)
    if(NOT ARG_ALL_INLINED)
      list(APPEND flags -finstrument-functions-exclude-file-list=/usr/include)
    endif()
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR CMAKE_C_COMPILER_ID MATCHES "Clang")
    if(ARG_ALL_INLINED)
      set(flags -finstrument-functions)
    else()
      set(flags -finstrument-functions-after-inlining)
    endif()
  else()
    message(FATAL_ERROR "callprof_instrument: GCC or Clang needed, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  target_compile_options(${target} PRIVATE ${flags})
endfunction()
