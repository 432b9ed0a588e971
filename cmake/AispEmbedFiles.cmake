# Turns files into C++ at build time, so text that is really a file (the HTML report's stylesheet
# and script) is edited as one, not as a string literal in a .cpp:
#
#   aisp_embed_files(OUTPUT <generated .cpp> HEADER <header the .cpp includes> NAMESPACE <ns>
#                    FILES <function name>=<file> ...)
#
# writes <generated .cpp> defining, for each entry, `std::string_view <function name>()` in <ns>,
# returning the file's bytes exactly (declared by the checked-in HEADER). It is regenerated when a
# file changes. Run as a script (cmake -P) by the custom command; no network, no tools but CMake.

if(CMAKE_SCRIPT_MODE_FILE)
  # Script mode: OUTPUT, HEADER, NAMESPACE and FILES (a ;-list, passed with | as separator) given
  # with -D.
  string(REPLACE "|" ";" entries "${FILES}")
  set(text "// Generated from the files below by cmake/AispEmbedFiles.cmake. Do not edit.\n")
  string(APPEND text "#include \"${HEADER}\"\n\nnamespace ${NAMESPACE} {\nnamespace {\n\n")
  set(functions "")
  foreach(entry IN LISTS entries)
    string(FIND "${entry}" "=" at)
    string(SUBSTRING "${entry}" 0 ${at} name)
    math(EXPR after "${at} + 1")
    string(SUBSTRING "${entry}" ${after} -1 file)
    file(READ "${file}" hex HEX)
    string(LENGTH "${hex}" digits)
    math(EXPR size "${digits} / 2")
    # 16 bytes a line: CMake's regular expressions have no {n}, so the hex is cut in 32-digit
    # pieces.
    set(bytes "")
    set(offset 0)
    while(offset LESS digits)
      string(SUBSTRING "${hex}" ${offset} 32 piece)
      string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," piece "${piece}")
      string(APPEND bytes "\n    ${piece}")
      math(EXPR offset "${offset} + 32")
    endwhile()
    if(size EQUAL 0)
      set(bytes "\n    0")  # an array cannot be empty; the view's size (0) ignores it
    endif()
    get_filename_component(file_name "${file}" NAME)
    string(APPEND text "// ${file_name}, ${size} bytes.\nconstexpr unsigned char k_${name}[] = {${bytes}\n};\n\n")
    string(APPEND functions
           "std::string_view ${name}() {\n  return std::string_view(reinterpret_cast<const char*>(k_${name}), ${size});\n}\n")
  endforeach()
  string(APPEND text "}  // namespace\n\n${functions}\n}  // namespace ${NAMESPACE}\n")
  file(WRITE "${OUTPUT}.tmp" "${text}")
  file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUTPUT}.tmp")
  return()
endif()

function(aisp_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT;HEADER;NAMESPACE" "FILES" ${ARGN})
  set(files "")
  set(entries "")
  foreach(entry IN LISTS ARG_FILES)
    string(FIND "${entry}" "=" at)
    math(EXPR after "${at} + 1")
    string(SUBSTRING "${entry}" ${after} -1 file)
    list(APPEND files "${file}")
    list(APPEND entries "${entry}")
  endforeach()
  string(REPLACE ";" "|" joined "${entries}")
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DHEADER=${ARG_HEADER}
            -DNAMESPACE=${ARG_NAMESPACE} "-DFILES=${joined}" -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    DEPENDS ${files} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    COMMENT "Embedding ${files}"
    VERBATIM)
endfunction()
