# ctest seeds_up_to_date (cmake -P): are the committed fuzz_model inputs in
# step with their readable text twins?
#   SEEDS        every X.bin must have a twin text/X.case and equal
#                `lctx encode text/X.case` byte for byte, and every twin a
#                X.bin (fuzzers/make-seeds.sh rewrites them).
#   REGRESSIONS  a X.bin with a twin text/X.case must decode to the same case
#                as the twin (encode(decode(X.bin)) == encode(text/X.case)):
#                the bytes are what the fuzzer found, the twin what people
#                read.
# Also: LCTX (the lctx binary), WORK (a scratch folder in the build tree).
# Fails naming every file that is out of step.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Hundreds of short lctx runs: LeakSanitizer's exit check would dominate.
set(ENV{ASAN_OPTIONS} "$ENV{ASAN_OPTIONS}:detect_leaks=0")
set(problems "")
set(checked 0)

function(lctx_encode in out)
  execute_process(COMMAND ${LCTX} encode ${in} OUTPUT_FILE ${out}
                  ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "lctx encode ${in} failed (${rc}): ${err}")
  endif()
endfunction()

# Checks every twin DIR/text/X.case against DIR/X.bin: for MODE seeds, the
# bytes must equal `lctx encode` of the twin; for MODE regressions, the bytes
# must decode to the twin's case.
function(check_twins dir mode)
  file(GLOB twins ${dir}/text/*.case)
  if(mode STREQUAL "seeds" AND NOT twins)
    string(APPEND problems "  ${dir}/text: no seeds (*.case)\n")
  endif()
  foreach(twin IN LISTS twins)
    get_filename_component(name ${twin} NAME_WLE)
    set(bin ${dir}/${name}.bin)
    math(EXPR checked "${checked} + 1")
    if(NOT EXISTS ${bin})
      string(APPEND problems "  ${bin}: missing (its twin is ${twin})\n")
      continue()
    endif()
    if(mode STREQUAL "seeds")
      set(rc 0)
      lctx_encode(${twin} ${WORK}/${name}.bin)
      file(SHA256 ${bin} want)
      file(SHA256 ${WORK}/${name}.bin got)
      set(why "differs from `lctx encode ${twin}`")
    else()
      execute_process(COMMAND ${LCTX} decode ${bin}
                      OUTPUT_FILE ${WORK}/r-${name}.case RESULT_VARIABLE rc)
      lctx_encode(${WORK}/r-${name}.case ${WORK}/r-${name}.decoded.bin)
      lctx_encode(${twin} ${WORK}/r-${name}.twin.bin)
      file(SHA256 ${WORK}/r-${name}.decoded.bin want)
      file(SHA256 ${WORK}/r-${name}.twin.bin got)
      set(why "does not decode to the case in ${twin}")
    endif()
    if(NOT rc EQUAL 0 OR NOT want STREQUAL got)
      string(APPEND problems "  ${bin}: ${why}\n")
    endif()
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
  set(checked ${checked} PARENT_SCOPE)
endfunction()

# Seeds: bytes derived from the text, and every X.bin has its twin.
check_twins(${SEEDS} seeds)
file(GLOB bins ${SEEDS}/*.bin)
foreach(bin IN LISTS bins)
  get_filename_component(name ${bin} NAME_WLE)
  if(NOT EXISTS ${SEEDS}/text/${name}.case)
    string(APPEND problems
           "  ${bin}: no text twin ${SEEDS}/text/${name}.case\n")
  endif()
endforeach()

# Regressions: text derived from the bytes, compared as cases.
check_twins(${REGRESSIONS} regressions)

if(problems)
  message(FATAL_ERROR "fuzz_model inputs out of step with their text twins "
                      "(run fuzzers/make-seeds.sh):\n${problems}")
endif()
message(STATUS "${checked} fuzz_model inputs match their text twins")
