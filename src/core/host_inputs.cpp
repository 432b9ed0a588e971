#include "aisp/host_inputs.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/element_decoding.hpp"

namespace aisp {

void HostInputs::add(std::string name, DType dtype, std::size_t count,
                     std::unique_ptr<unsigned char[]> bytes) {
  inputs_.push_back({std::move(name), dtype, count, std::move(bytes)});
}

const HostInputs::Input& HostInputs::find(std::string_view name) const {
  std::string known;
  for (const Input& input : inputs_) {
    if (input.name == name) return input;
    known += (known.empty() ? "" : ", ") + input.name;
  }
  throw std::invalid_argument(fmt::format("reference: no input named '{}' (inputs: {})", name,
                                          known.empty() ? "none" : known));
}

const HostInputs::Input& HostInputs::find(std::string_view name, DType dtype) const {
  const Input& input = find(name);
  if (input.dtype != dtype)
    throw std::invalid_argument(fmt::format("reference: input '{}' holds {}, not {}", name,
                                            dtype_name(input.dtype), dtype_name(dtype)));
  return input;
}

std::span<const float> HostInputs::f32(std::string_view name) const {
  const Input& input = find(name, DType::f32);
  return {reinterpret_cast<const float*>(input.bytes.get()), input.count};
}

std::span<const double> HostInputs::f64(std::string_view name) const {
  const Input& input = find(name, DType::f64);
  return {reinterpret_cast<const double*>(input.bytes.get()), input.count};
}

double HostInputs::element(std::string_view name, std::size_t index) const {
  const Input& input = find(name);
  if (index >= input.count)
    throw std::out_of_range(fmt::format("reference: index {} past the end of input '{}' ({} "
                                        "elements)",
                                        index, name, input.count));
  return decode_element(input.dtype, input.bytes.get(), index);
}

std::size_t HostInputs::count(std::string_view name) const { return find(name).count; }

}  // namespace aisp
