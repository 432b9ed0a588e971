# Warnings for the harness and the pairs; errors in CI (AISP_WARNINGS_AS_ERRORS=ON).
add_library(aisp_warnings INTERFACE)
target_compile_options(aisp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=cross-execution-space-call>)
# GCC 12 reports -Wrestrict inside libstdc++'s std::string at -O3 for code that is fine (GCC bug
# 105651); it is not an error worth failing a build on.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(aisp_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict> $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wno-restrict>)
endif()
if(AISP_WARNINGS_AS_ERRORS)
  target_compile_options(aisp_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
endif()
