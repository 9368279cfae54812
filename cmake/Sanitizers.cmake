# ASan + UBSan for the whole build (tests included); any UB report aborts the test.
if(RIGHTSIZE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
# Fuzzing (clang only): instrument every target for libFuzzer coverage plus ASan + UBSan; the
# fuzz targets themselves add -fsanitize=fuzzer to link libFuzzer's main (tests/fuzz).
if(RIGHTSIZE_FUZZ AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
