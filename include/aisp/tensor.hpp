// A harness-owned buffer. Benchmarks get tensors from Context::alloc and keep the handle; the
// harness keeps the allocation, so it can poison outputs, hash inputs, check aliasing and free
// everything when the variant is done.
#pragma once

#include <cstddef>
#include <string>

#include "aisp/dtype.hpp"

namespace aisp {

// Where a tensor lives. `device` is cudaMalloc, `pinned` is cudaMallocHost, `host` is plain
// (pageable) memory, `managed` is cudaMallocManaged (keep it modest: never more than the card has
// free).
enum class Memory { device, pinned, host, managed };

// What a tensor is to the benchmark. Inputs are filled by the benchmark in setup and must not
// change in run; outputs are what verification compares; scratch is neither.
enum class Role { input, output, scratch };

class Tensor {
 public:
  Tensor() = default;
  Tensor(std::string name, DType dtype, std::size_t count, Memory memory, Role role, void* data)
      : name_(std::move(name)), dtype_(dtype), count_(count), memory_(memory), role_(role),
        data_(data) {}
  // On `device` (its CUDA ordinal): a multi-GPU pair's allocation on another GPU of the run.
  Tensor(std::string name, DType dtype, std::size_t count, Memory memory, Role role, void* data,
         int device)
      : name_(std::move(name)), dtype_(dtype), count_(count), memory_(memory), role_(role),
        data_(data), device_(device) {}

  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * dtype_size(dtype_); }
  Memory memory() const { return memory_; }
  Role role() const { return role_; }
  void* data() const { return data_; }
  // The GPU that holds device memory (0, the run's first GPU, unless allocated with a device);
  // for host and pinned memory, the device that was current when it was allocated.
  int device() const { return device_; }
  template <class T> T* as() const { return static_cast<T*>(data_); }
  bool valid() const { return data_ != nullptr; }

 private:
  std::string name_;
  DType dtype_ = DType::f32;
  std::size_t count_ = 0;
  Memory memory_ = Memory::device;
  Role role_ = Role::scratch;
  void* data_ = nullptr;
  int device_ = 0;
};

std::string_view memory_name(Memory memory);
std::string_view role_name(Role role);

}  // namespace aisp
