# Strict warnings as an INTERFACE target, linked to our own targets only.
add_library(rightsize_warnings INTERFACE)
target_compile_options(rightsize_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough -Wformat=2)
if(RIGHTSIZE_WERROR)
  target_compile_options(rightsize_warnings INTERFACE -Werror)
endif()
# Bounds-checked standard containers in Debug and sanitizer builds.
if(CMAKE_BUILD_TYPE STREQUAL "Debug" OR RIGHTSIZE_SANITIZE)
  target_compile_definitions(rightsize_warnings INTERFACE _GLIBCXX_ASSERTIONS)
endif()
if(RIGHTSIZE_CLANG_TIDY)
  find_program(CLANG_TIDY_EXE NAMES clang-tidy clang-tidy-14 REQUIRED)
  set(CMAKE_CXX_CLANG_TIDY ${CLANG_TIDY_EXE})
endif()
