// ncclAlltoAll for ch04's pairs. The harness's NCCL function table (aisp/nccl.hpp) has no
// all-to-all, so this resolves it from the libnccl.so.2 the harness already loaded (dlopen with
// RTLD_NOLOAD, then dlsym): no second copy of the library, no link-time dependency. Call after
// ctx.nccl() (which loads the library). Throws aisp::Unavailable when NCCL is not loaded or lacks
// the symbol (NCCL before 2.7 has no ncclAlltoAll), saying so.
#pragma once

#include <aisp/nccl.hpp>

#if AISP_HAVE_NCCL
namespace aisp::ch04 {

using NcclAlltoAllFunction = decltype(&ncclAlltoAll);  // nccl.h's declaration

NcclAlltoAllFunction nccl_all_to_all();

}  // namespace aisp::ch04
#endif
