# LCTX_FUZZ_ENGINE: which fuzzing engine fuzzers/ builds for (see
# fuzzers/README.md). Every engine builds the replay drivers
# <target>_replay.
#   none       the replay drivers only (release and test presets)
#   libfuzzer  also <target>, linked with LCTX_LIB_FUZZING_ENGINE; the whole
#              project is compiled with -fsanitize=fuzzer-no-link so that our
#              code has coverage (fuzz preset; needs clang)
#   afl        also <target>_afl, linked with AFL++'s libAFLDriver; the
#              compiler must be afl-clang-fast (or afl-clang-lto), which
#              instruments everything (afl preset)
set(LCTX_FUZZ_ENGINE none CACHE STRING
    "Fuzzing engine for fuzzers/: none, libfuzzer or afl")
set_property(CACHE LCTX_FUZZ_ENGINE PROPERTY STRINGS none libfuzzer afl)
set(LCTX_LIB_FUZZING_ENGINE -fsanitize=fuzzer CACHE STRING
    "Link flags of the libFuzzer targets (OSS-Fuzz: $LIB_FUZZING_ENGINE)")

if(LCTX_FUZZ_ENGINE STREQUAL "libfuzzer")
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LCTX_FUZZ_ENGINE=libfuzzer needs clang "
                        "(found ${CMAKE_C_COMPILER_ID}); use the fuzz preset")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
elseif(LCTX_FUZZ_ENGINE STREQUAL "afl")
  get_filename_component(_lctx_cc_name "${CMAKE_C_COMPILER}" NAME)
  if(NOT _lctx_cc_name MATCHES "^afl-")
    message(FATAL_ERROR "LCTX_FUZZ_ENGINE=afl needs CMAKE_C_COMPILER="
                        "afl-clang-fast (found ${CMAKE_C_COMPILER}); use the "
                        "afl preset")
  endif()
elseif(NOT LCTX_FUZZ_ENGINE STREQUAL "none")
  message(FATAL_ERROR "LCTX_FUZZ_ENGINE must be none, libfuzzer or afl, "
                      "not '${LCTX_FUZZ_ENGINE}'")
endif()
