# ASan + UBSan for the whole build (tests included); any UB report aborts the test.
if(RIGHTSIZE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
