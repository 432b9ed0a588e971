# Warnings for the harness and the pairs; errors in CI (AISP_WARNINGS_AS_ERRORS=ON).
add_library(aisp_warnings INTERFACE)
target_compile_options(aisp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=cross-execution-space-call>)
if(AISP_WARNINGS_AS_ERRORS)
  target_compile_options(aisp_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
endif()
