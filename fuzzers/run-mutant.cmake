# ctest fuzz_model_finds_mutant (cmake -P): fuzz_model, built against a model
# with one condition flipped (MUTATION, see fuzzers/CMakeLists.txt), must
# crash with an `LCTX-FINDING` line that names a spec row within MAX_TIME
# seconds of libFuzzer (one process, -seed=1). Two runs: from a copy of the
# seed corpus (as a campaign starts), and from an empty corpus (so that the
# fuzzer itself, not a seed that happens to hit the flipped condition, is
# shown to find it). Everything written (corpus, crash artifact, log) stays
# in WORK, a folder of the build tree. Prints each finding and its time.
#   FUZZER  the fuzz_model_mutant binary   SEEDS     corpus/seeds/fuzz_model
#   WORK    scratch folder                 MAX_TIME  seconds per run
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
file(GLOB seed_files LIST_DIRECTORIES false ${SEEDS}/*)
list(FILTER seed_files EXCLUDE REGEX "/(README\\.md|\\.[^/]*)$")
list(LENGTH seed_files seed_count)

foreach(start IN ITEMS seeds empty)
  set(dir ${WORK}/${start})
  file(MAKE_DIRECTORY ${dir}/corpus)
  if(start STREQUAL "seeds")
    file(COPY ${seed_files} DESTINATION ${dir}/corpus)
  endif()
  string(TIMESTAMP t0 "%s%f")
  execute_process(
    COMMAND ${FUZZER} -seed=1 -max_total_time=${MAX_TIME}
            -print_final_stats=1 -artifact_prefix=${dir}/ ${dir}/corpus
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT 170)
  string(TIMESTAMP t1 "%s%f")
  math(EXPR ms "(${t1} - ${t0}) / 1000")
  file(WRITE ${dir}/fuzz.log "${out}${err}")

  string(REGEX MATCH "LCTX-FINDING [^\n]*" finding "${err}")
  if(rc EQUAL 0 OR NOT finding MATCHES "row=[A-Z]+-[0-9]+")
    message(FATAL_ERROR
            "fuzz_model did not find the mutant (${MUTATION}) in ${MAX_TIME} s "
            "from the ${start} corpus (exit ${rc}, ${ms} ms; finding: "
            "'${finding}'); log: ${dir}/fuzz.log")
  endif()
  string(REGEX MATCH "number_of_executed_units: *[0-9]+" units "${err}")
  string(REGEX MATCH "[0-9]+$" units "${units}")
  # libFuzzer prints INITED once the whole starting corpus has run.
  if(start STREQUAL "empty")
    set(how "from an empty corpus")
  elseif(err MATCHES "INITED")
    set(how "by fuzzing, after the ${seed_count} seeds ran clean")
  else()
    set(how "by one of the ${seed_count} seeds")
  endif()
  message(STATUS "mutant (${MUTATION}) found ${how} in ${ms} ms, "
                 "${units} inputs: ${finding}")
endforeach()
