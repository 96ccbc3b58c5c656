# The MLIR C API (Debian's libmlir-19-dev) as one INTERFACE target,
# lctx_mlir. The C API exists only as static archives (libMLIRCAPI*.a); the
# C++ implementation is libMLIR.so, which needs libLLVM-19.so and libstdc++.
# Configure fails, naming the package, when any piece is missing.
set(LCTX_MLIR_ROOT "/usr/lib/llvm-19" CACHE PATH
    "Root of the LLVM/MLIR 19 installation (libmlir-19-dev)")

find_path(LCTX_MLIR_INCLUDE_DIR mlir-c/IR.h
          HINTS ${LCTX_MLIR_ROOT}/include NO_DEFAULT_PATH)
if(NOT LCTX_MLIR_INCLUDE_DIR)
  message(FATAL_ERROR
    "MLIR C API headers (mlir-c/IR.h) not found under ${LCTX_MLIR_ROOT}/include: "
    "install the Debian package libmlir-19-dev "
    "(apt-get install libmlir-19-dev), or set LCTX_MLIR_ROOT.")
endif()

set(_lctx_mlir_libs)
foreach(lib MLIRCAPIFunc MLIRCAPIArith MLIRCAPISCF MLIRCAPIIR MLIR LLVM-19)
  string(TOUPPER "${lib}" _var)
  string(REPLACE "-" "_" _var "${_var}")
  set(_var LCTX_LIB_${_var})
  find_library(${_var} NAMES ${lib}
               HINTS ${LCTX_MLIR_ROOT}/lib NO_DEFAULT_PATH)
  if(NOT ${_var})
    find_library(${_var} NAMES ${lib})
  endif()
  if(NOT ${_var})
    message(FATAL_ERROR
      "MLIR library lib${lib} not found (looked in ${LCTX_MLIR_ROOT}/lib and "
      "the system paths): install the Debian package libmlir-19-dev "
      "(apt-get install libmlir-19-dev), or set LCTX_MLIR_ROOT.")
  endif()
  list(APPEND _lctx_mlir_libs ${${_var}})
endforeach()

add_library(lctx_mlir INTERFACE)
target_include_directories(lctx_mlir SYSTEM INTERFACE ${LCTX_MLIR_INCLUDE_DIR})
# The archives in dependency order (C API dialects before CAPIIR), then the
# shared C++ libraries; rpath so that the binaries run from the build tree.
target_link_libraries(lctx_mlir INTERFACE ${_lctx_mlir_libs} stdc++)
target_link_options(lctx_mlir INTERFACE
                    "LINKER:-rpath,${LCTX_MLIR_ROOT}/lib")
