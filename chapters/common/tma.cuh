// TMA (the Tensor Memory Accelerator, sm_90 and later): device side. Tiles of a tensor described
// by a CUtensorMap (encode it on the host with tensor_map.hpp, in setup, and pass it to the kernel
// as `const __grid_constant__ CUtensorMap`) are copied global -> shared by the copy engine, which
// counts the bytes down on an mbarrier (mbarrier.cuh); or shared -> global, tracked by bulk groups.
//
// Coordinates are in elements, innermost dimension first: for a row-major matrix, (column, row)
// of the box's first element. The box lands in shared memory laid out as the map's swizzle says
// (128B swizzle: rows of 128 bytes, 16-byte chunk c of row r at chunk c ^ (r % 8), so the
// destination must be 1024-byte aligned).
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: the driver library is never linked)

#include <cstdint>

#include "shared_address.cuh"

namespace aisp::common {

// The address PTX wants for a tensor map: the generic address of the __grid_constant__ parameter.
__device__ __forceinline__ std::uint64_t tensor_map_address(const CUtensorMap& map) {
  return reinterpret_cast<std::uint64_t>(&map);
}

// Fetches the map into the copy engine's descriptor cache ahead of the first copy (optional).
__device__ __forceinline__ void tma_prefetch_tensor_map(const CUtensorMap& map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensor_map_address(map)) : "memory");
}

// Box at (x, y) -> this CTA's shared memory at dst; the bytes complete on `bar` (which must
// expect them: mbarrier_arrive_expect_tx).
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap& map, std::uint64_t* bar,
                                            int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst)),
               "l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(shared_address(bar))
               : "memory");
}

// Box at (x, y) -> the same shared-memory offset in every CTA of the cluster whose bit is set in
// cta_mask (bit r = cluster rank r); in each of them the bytes complete on the barrier at bar's
// offset. Read from L2 once, delivered to all: this is what makes a cluster share a tile.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap& map,
                                                      std::uint64_t* bar, int x, int y,
                                                      std::uint16_t cta_mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)),
               "l"(tensor_map_address(map)), "r"(x), "r"(y), "r"(shared_address(bar)), "h"(cta_mask)
               : "memory");
}

// This CTA's shared memory at src -> the box at (x, y). Tracked by bulk groups (below), not by an
// mbarrier. Ordinary stores that wrote src must be followed by fence_proxy_async_shared() in each
// writing thread and a barrier before the issuing thread starts the copy.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap& map, const void* src, int x,
                                             int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
          tensor_map_address(map)),
      "r"(x), "r"(y), "r"(shared_address(src))
      : "memory");
}

__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most `Pending` bulk groups still read their shared-memory source (the source
// may then be overwritten; the global writes may still be in flight).
template <int Pending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

// Orders this thread's ordinary shared-memory accesses before later accesses of the async proxy
// (the copy engine, wgmma) to shared memory.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

}  // namespace aisp::common
