// Host copies of a variant's inputs, read once after setup, for a float64 reference
// (Benchmark::reference). Read-only; typed views check the dtype.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aisp/dtype.hpp"

namespace aisp {

class HostInputs {
 public:
  // The named input's elements. Throws std::invalid_argument naming the inputs there are when
  // none has that name, or naming the dtype when it is not the one asked for.
  std::span<const float> f32(std::string_view name) const;
  std::span<const double> f64(std::string_view name) const;
  // One element of any dtype, decoded to double (f16, bf16, fp8 and integers included).
  double element(std::string_view name, std::size_t index) const;
  std::size_t count(std::string_view name) const;

  // Used by the harness to fill it.
  void add(std::string name, DType dtype, std::size_t count, std::unique_ptr<unsigned char[]> bytes);

 private:
  struct Input {
    std::string name;
    DType dtype;
    std::size_t count = 0;
    std::unique_ptr<unsigned char[]> bytes;
  };
  const Input& find(std::string_view name) const;
  const Input& find(std::string_view name, DType dtype) const;
  std::vector<Input> inputs_;
};

}  // namespace aisp
