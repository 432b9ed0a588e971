// Before every timed sample: evict the L2 by writing a buffer larger than it, and undo any
// persisting-L2 state a variant may have set, so each sample starts from cold cache and the
// same cache policy.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/cuda_handles.hpp"

namespace aisp {

class L2Flusher {
public:
  // Sizes the buffer at twice the device's L2 (read off the device).
  L2Flusher(int device, cudaStream_t stream);

  // A multi-GPU run: also flush GPU `device`'s L2 on its `stream`, with every flush().
  void add_device(int device, cudaStream_t stream);

  // Enqueues the eviction on the stream and resets persisting-L2 lines and the stream's access
  // policy window (on every added GPU too). Does not synchronize.
  void flush();
  std::size_t bytes() const { return buffer_.bytes(); }

private:
  cudaStream_t stream_;
  DeviceMemory buffer_;  // written in full by every flush
  bool persisting_l2_supported_ = false;
  unsigned char fill_value_ = 0;
  std::vector<std::pair<int, std::unique_ptr<L2Flusher>>> other_devices_;  // added GPUs
};

}  // namespace aisp
