# Records the compiler, CUDA version and architectures at configure time; the git commit and
# dirty flag are read when the binary runs (from its source tree when it is there), so a rebuild
# is not needed to stamp a new commit.
set(AISP_BUILD_INFO_CPP ${CMAKE_CURRENT_BINARY_DIR}/generated/build_info.cpp)
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.cpp.in ${AISP_BUILD_INFO_CPP} @ONLY)
