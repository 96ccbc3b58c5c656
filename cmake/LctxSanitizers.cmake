# LCTX_SANITIZE=ON: AddressSanitizer and UndefinedBehaviorSanitizer on every
# target, with no recovery, so that any report fails the run.
if(LCTX_SANITIZE)
  set(_lctx_san -fsanitize=address,undefined -fno-sanitize-recover=all
                -fno-omit-frame-pointer)
  add_compile_options(${_lctx_san})
  add_link_options(${_lctx_san})
endif()
