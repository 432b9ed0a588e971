// What this binary was built with; generated at configure time (cmake/build_info.cpp.in).
#pragma once

#include <string>

namespace aisp {

struct BuildInfo {
  std::string version;
  std::string cxx_compiler;
  std::string cuda_compiler;
  std::string cuda_toolkit;
  std::string cuda_architectures;  // "90a;100a"
  std::string build_type;
  std::string source_dir;  // where git commit and dirty flag are read at run time
};

const BuildInfo& build_info();

}  // namespace aisp
