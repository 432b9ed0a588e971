# aisp_add_suite(<target> [OUTPUT_NAME <name>] PAIR_ROOTS <dir>...)
#
# Builds an executable holding every pair found under the given roots: each file named
# baseline_*.cu|cpp or optimized_*.cu|cpp, plus any other .cu/.cpp beside them (shared kernels).
# Adding a file is all it takes: the glob is re-checked at every build. The executable is the
# full aisp CLI (`<name> bench list-targets`, `<name> bench run`, ...).
function(aisp_add_suite target)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "PAIR_ROOTS" ${ARGN})
  if(NOT ARG_PAIR_ROOTS)
    message(FATAL_ERROR "aisp_add_suite(${target}): give PAIR_ROOTS, the folders holding chNN_<topic>/ pair folders")
  endif()
  set(sources)
  foreach(root IN LISTS ARG_PAIR_ROOTS)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${root}/*.cu ${root}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  add_executable(${target} ${sources})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  target_link_libraries(${target} PRIVATE aisp::aisp aisp::main)
  if(TARGET aisp_warnings)
    target_link_libraries(${target} PRIVATE aisp_warnings)
  endif()
endfunction()
