// Test-only: ch04's moe_all_to_all variants (chapters/ch04_multi_gpu/moe_all_to_all_*.hpp), run
// as ONE rank on one GPU: an NCCL communicator of one rank, every token routed to this GPU's 8
// experts, the exchange a send/recv to itself. What it checks where only one GPU is lent: the
// routing, the sort and the packing on the GPU against the float64 host reference of the dispatch
// (ties, order within an expert), the counts, the zeroed tail, and both variants' NCCL call
// sequences (ncclAlltoAll of the counts, grouped send/recv, per-step cudaMalloc/cudaFree) running
// and agreeing. What it cannot check: the offsets and traffic between several GPUs, NVLink
// (ch04:moe_all_to_all_* on 2 GPUs). Zipf routing, as ch04's `_skewed` pair.
#pragma once

#include "../../../chapters/ch04_multi_gpu/moe_all_to_all_preallocated.hpp"
#include "../../../chapters/ch04_multi_gpu/moe_all_to_all_send_recv.hpp"

namespace aisp::test_pairs {

template <class Variant>
struct OneRank : Variant {
  OneRank() : Variant(common::MoeRouting::zipf) {}
  Requirements requirements() const override {
    Requirements r;
    r.min_gpus = 1;
    return r;
  }
  // Host synchronizations inside run() (as on 2 GPUs, where multi-GPU pairs are timed per call):
  // never captured into a graph.
  TimingMode timing_mode() const override { return TimingMode::direct; }
};

}  // namespace aisp::test_pairs
