# lctx_embed(OUT SYMBOL FILE): generates OUT, a C file that defines
#   const char SYMBOL[]; const unsigned long SYMBOL_size;
# holding FILE's bytes (NUL-terminated), regenerated when FILE changes. Used to
# put the spec table inside fuzz targets, which must run where the source tree
# is absent (OSS-Fuzz, ClusterFuzzLite).
function(lctx_embed out symbol file)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/LctxEmbedRun.cmake
    DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/LctxEmbedRun.cmake
    COMMENT "Embedding ${file}")
endfunction()
