# `cmake --install build --prefix P`: the static libraries, the public headers
# (with the generated version.hpp) and a CMake package, so that a project
# finds topkfs with find_package(topkfs) and links topkfs::topkfs. The
# command and its man page are installed by apps/topkfs, the Python package
# by python/.
include(CMakePackageConfigHelpers)

set(TOPKFS_INSTALLED_LIBRARIES topkfs_data topkfs_pictures topkfs_linear topkfs_trees topkfs_scoring
    topkfs_baselines topkfs)
if(TOPKFS_WITH_TORCH)
  list(APPEND TOPKFS_INSTALLED_LIBRARIES topkfs_neural)
endif()
install(TARGETS ${TOPKFS_INSTALLED_LIBRARIES} EXPORT topkfsTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/topkfs ${PROJECT_BINARY_DIR}/include/topkfs
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TOPKFS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/topkfs)
install(EXPORT topkfsTargets NAMESPACE topkfs:: DESTINATION ${TOPKFS_CMAKE_DIR})
# The config file states which optional dependencies this build linked.
if(TOPKFS_WITH_TORCH)
  set(TOPKFS_WITH_TORCH 1)
else()
  set(TOPKFS_WITH_TORCH 0)
endif()
if(BLAS_FOUND AND TOPKFS_HAVE_CBLAS_H)
  set(TOPKFS_LINEAR_BLAS 1)
else()
  set(TOPKFS_LINEAR_BLAS 0)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/topkfsConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/topkfsConfig.cmake
                              INSTALL_DESTINATION ${TOPKFS_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/topkfsConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/topkfsConfig.cmake ${PROJECT_BINARY_DIR}/topkfsConfigVersion.cmake
        DESTINATION ${TOPKFS_CMAKE_DIR})
