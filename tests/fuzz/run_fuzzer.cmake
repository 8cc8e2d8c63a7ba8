# ctest driver for a libFuzzer target: fuzzes a fresh copy of the seed corpus for a bounded
# time and fails on any crash, sanitizer report, leak or timeout.
# Inputs: -DFUZZER=<executable> -DSEEDS=<dir> -DWORK=<dir> -DSECONDS=<n>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(GLOB seeds ${SEEDS}/*.callprof ${SEEDS}/*.payload ${SEEDS}/*.dump ${SEEDS}/*.pb)
if(NOT seeds)
  message(FATAL_ERROR "no seeds in ${SEEDS}; build the fuzz target first")
endif()
file(COPY ${seeds} DESTINATION ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} ${WORK}/corpus -max_total_time=${SECONDS} -timeout=20 -print_final_stats=1
          -artifact_prefix=${WORK}/
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the fuzzer failed (status ${status}); the input that did it is in ${WORK}")
endif()
