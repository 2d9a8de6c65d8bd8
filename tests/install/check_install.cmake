# The install test: `cmake --install` of the build into a fresh prefix in a
# temporary folder, then what a user of it would do: run the command, read
# its man page, and configure, build and run a project that finds topkfs with
# find_package and links topkfs::topkfs (consumer/). Removes the folder when
# everything passed; leaves it for a look otherwise.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DVERSION=... -P check_install.cmake

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

if(DEFINED ENV{TMPDIR})
  set(temp $ENV{TMPDIR})
else()
  set(temp /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(work ${temp}/topkfs-install-test-${suffix})
set(prefix ${work}/prefix)
file(MAKE_DIRECTORY ${work})

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file bin/topkfs libexec/topkfs/topkfs-hdf5-reader share/man/man1/topkfs.1
             include/topkfs/version.hpp
             include/topkfs/methods/registry.hpp lib/cmake/topkfs/topkfsConfig.cmake
             lib/cmake/topkfs/topkfsConfigVersion.cmake)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

run("topkfs --version" ${prefix}/bin/topkfs --version)
string(STRIP "${output}" output)
if(NOT output STREQUAL "topkfs ${VERSION}")
  message(FATAL_ERROR "topkfs --version printed '${output}', expected 'topkfs ${VERSION}'")
endif()
# HDF5 files are read in the installed reader program (libexec/topkfs).
run("writing an HDF5 file" /usr/bin/python3 -c
    "import h5py, numpy as np\nwith h5py.File('${work}/small.h5', 'w') as f:\n    f['X'] = np.arange(12.0).reshape(6, 2)\n    f['Y'] = np.arange(6) % 2")
run("topkfs info small.h5" ${prefix}/bin/topkfs info ${work}/small.h5)
string(FIND "${output}" "6 samples x 2 features" at)
if(at EQUAL -1)
  message(FATAL_ERROR "topkfs info small.h5 printed '${output}'")
endif()
file(READ ${prefix}/share/man/man1/topkfs.1 page)
foreach(section ".SH NAME" ".SS select" ".SS evaluate" "topkfs ${VERSION}")
  string(FIND "${page}" "${section}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the man page lacks '${section}'")
  endif()
endforeach()

run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer
    -B ${work}/consumer -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("building the consumer" ${CMAKE_COMMAND} --build ${work}/consumer)
run("running the consumer" ${work}/consumer/consumer)
message(STATUS "${output}")
string(FIND "${output}" "topkfs ${VERSION}," at)
if(at EQUAL -1)
  message(FATAL_ERROR "the consumer printed '${output}'")
endif()
file(REMOVE_RECURSE ${work})
