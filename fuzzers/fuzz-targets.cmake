# fuzz-targets.cmake - reads the one table of fuzz targets,
# lctx_fuzz_targets[] in harness/core/checks/fuzzcheck.c (one row per line:
# {"NAME", NEEDS_MLIR, "EXTRA_SOURCE" or NULL, CHECK or NULL},), and sets
#   LCTX_FUZZ_TARGETS                   the names, in table order
#   LCTX_FUZZ_NEEDS_MLIR_<name>         TRUE or FALSE
#   LCTX_FUZZ_EXTRA_SOURCE_<name>       the extra source (from the project
#                                       root), or empty
# fuzzers/oss-fuzz-build.sh reads the same rows with sed.
set(_table ${PROJECT_SOURCE_DIR}/harness/core/checks/fuzzcheck.c)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_table})
file(STRINGS ${_table} _rows REGEX "^[ \t]*{\"fuzz_")
set(LCTX_FUZZ_TARGETS)
set(_row_regex
    "^[ \t]*{\"(fuzz_[A-Za-z0-9_]+)\",[ \t]*(true|false),[ \t]*(NULL|\"[^\"]*\"),")
foreach(row IN LISTS _rows)
  if(NOT row MATCHES "${_row_regex}")
    message(FATAL_ERROR "fuzz-targets.cmake: a row of lctx_fuzz_targets[] in "
                        "${_table} is not {\"NAME\", true|false, "
                        "\"SOURCE\"|NULL, CHECK}: ${row}")
  endif()
  set(_name ${CMAKE_MATCH_1})
  list(APPEND LCTX_FUZZ_TARGETS ${_name})
  if(CMAKE_MATCH_2 STREQUAL "true")
    set(LCTX_FUZZ_NEEDS_MLIR_${_name} TRUE)
  else()
    set(LCTX_FUZZ_NEEDS_MLIR_${_name} FALSE)
  endif()
  string(REGEX REPLACE "^\"(.*)\"$" "\\1" _extra "${CMAKE_MATCH_3}")
  if(_extra STREQUAL "NULL")
    set(_extra "")
  endif()
  set(LCTX_FUZZ_EXTRA_SOURCE_${_name} "${_extra}")
endforeach()
if(NOT LCTX_FUZZ_TARGETS)
  message(FATAL_ERROR "fuzz-targets.cmake: no row in lctx_fuzz_targets[] "
                      "of ${_table}")
endif()
