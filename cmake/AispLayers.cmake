# The harness's layers (docs/architecture.md): one object library per folder of src/, each allowed
# to include only its own headers and those of the layers it lists, and, through them, the layers
# below those. A layer's headers are reachable only through an include root of its own,
#   <build>/layer_includes/<layer>/<layer> -> src/<layer>
# so `#include "run/suite_runner.hpp"` from src/measure/ finds no file: an upward (or sideways)
# include fails the build where it is written. libaisp is the archive of every layer's objects.

set(AISP_LAYER_INCLUDE_ROOT ${CMAKE_BINARY_DIR}/layer_includes)
set(AISP_LAYERS "")

# aisp_add_layer(<layer> [BELOW <layer>...] [SOURCES <extra source>...])
# Builds the objects of src/<layer>/ (every .cpp and .cu below it). BELOW names the layers whose
# headers it may include; each of those must have been added already, which keeps the graph
# acyclic by construction.
function(aisp_add_layer layer)
  cmake_parse_arguments(ARG "" "" "BELOW;SOURCES" ${ARGN})
  set(folder ${PROJECT_SOURCE_DIR}/src/${layer})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${folder}/*.cpp ${folder}/*.cu)
  list(FILTER sources EXCLUDE REGEX "/cli/main\\.cpp$")
  set(target aisp_${layer})
  add_library(${target} OBJECT ${sources} ${ARG_SOURCES})
  set(root ${AISP_LAYER_INCLUDE_ROOT}/${layer})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${folder} ${root}/${layer} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${root} ${PROJECT_SOURCE_DIR}/include)
  foreach(lower IN LISTS ARG_BELOW)
    if(NOT lower IN_LIST AISP_LAYERS)
      message(FATAL_ERROR "layer ${layer} is declared above '${lower}', which is not a layer added "
                          "before it; add layers from the bottom up (src/CMakeLists.txt)")
    endif()
    target_link_libraries(${target} PUBLIC aisp_${lower})
  endforeach()
  # Usage requirements only (object libraries do not link): the libraries' headers and
  # definitions. libaisp links them.
  target_link_libraries(${target}
    PUBLIC CUDA::cudart_static CUDA::cublas CUDA::cublasLt CUDA::nvtx3 Threads::Threads
           nlohmann_json::nlohmann_json fmt::fmt
    PRIVATE $<BUILD_INTERFACE:aisp_warnings>)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set(AISP_LAYERS ${AISP_LAYERS} ${layer} PARENT_SCOPE)
endfunction()

# Every folder of src/ must be a layer: a folder the build does not know would not be compiled.
function(aisp_check_every_folder_is_a_layer)
  file(GLOB entries LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/src/*)
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY ${entry})
      get_filename_component(name ${entry} NAME)
      if(NOT name IN_LIST AISP_LAYERS)
        message(FATAL_ERROR "src/${name}/ is not a layer: declare it in src/CMakeLists.txt with "
                            "aisp_add_layer(${name} BELOW ...) and in docs/architecture.md")
      endif()
    endif()
  endforeach()
endfunction()
