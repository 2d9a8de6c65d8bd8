# Sanitizer and fuzzing builds (docs/reliability.md). Each is meant for its
# own build folder: the flags apply to every target of the build.
#
#   -DTOPKFS_SANITIZE=address,undefined   ASan + UBSan; any finding aborts
#   -DTOPKFS_SANITIZE=thread              ThreadSanitizer
#   -DTOPKFS_FUZZ=ON                      a libFuzzer target per reader (clang)
set(TOPKFS_SANITIZE "" CACHE STRING
    "Sanitizers to build every target with, as -fsanitize takes them (address,undefined or thread)")
option(TOPKFS_FUZZ "Build one libFuzzer target per reader (needs clang and libFuzzer)" OFF)

if(TOPKFS_SANITIZE)
  # Frame pointers for readable stacks; no recovery, so that UBSan stops at
  # its first finding as ASan does (halt_on_error).
  add_compile_options(-fsanitize=${TOPKFS_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${TOPKFS_SANITIZE})
endif()

if(TOPKFS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "TOPKFS_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage instrumentation for the code the targets reach: the readers
  # (topkfs_data) and the report reader (topkfs); src/CMakeLists.txt adds it
  # to those two, the targets link libFuzzer. Not to the trees, the linear
  # and the neural code: in the ASan suite, which shares its build with the
  # fuzz targets in CI, their hot loops took twice the CPU with it.
  set(TOPKFS_FUZZ_COVERAGE -fsanitize=fuzzer-no-link)
endif()
