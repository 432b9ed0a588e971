#include "aisp/tensor.hpp"

namespace aisp {

std::string_view memory_name(Memory memory) {
  switch (memory) {
  case Memory::device: return "device";
  case Memory::pinned: return "pinned";
  case Memory::host: return "host";
  case Memory::managed: return "managed";
  }
  return "unknown";
}

std::string_view role_name(Role role) {
  switch (role) {
  case Role::input: return "input";
  case Role::output: return "output";
  case Role::scratch: return "scratch";
  }
  return "unknown";
}

}  // namespace aisp
