# cmake --install gives the public headers, libaisp, libaisp_main and a CMake package:
#   find_package(aisp) ; aisp_add_suite(mybench PAIR_ROOTS ${CMAKE_CURRENT_SOURCE_DIR}/pairs)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/aisp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS aisp aisp_main EXPORT aispTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS aisp_suite RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET aisp_mpi_module)  # where run/mpi_job.cpp looks: <prefix>/lib/aisp/libaisp_mpi.so
  install(TARGETS aisp_mpi_module LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/aisp)
endif()
install(EXPORT aispTargets NAMESPACE aisp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aisp)
configure_package_config_file(cmake/aispConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/aispConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aisp)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/aispConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/aispConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/aispConfigVersion.cmake
              cmake/AispPairs.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/aisp)
