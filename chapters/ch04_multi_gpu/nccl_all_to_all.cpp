// nccl_all_to_all.hpp: ncclAlltoAll resolved from the harness's loaded libnccl.so.2.
#include "nccl_all_to_all.hpp"

#if AISP_HAVE_NCCL
#include <aisp/benchmark.hpp>
#include <dlfcn.h>

#include <string>

namespace aisp::ch04 {

NcclAlltoAllFunction nccl_all_to_all() {
  // RTLD_NOLOAD: only the library already loaded (matched by its soname, whichever path the
  // harness found it at); the handle's reference is dropped at once, the library stays loaded.
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr)
    throw aisp::Unavailable("ncclAlltoAll: libnccl.so.2 is not loaded in this process (ask "
                            "ctx.nccl() first, which loads it)");
  void* symbol = dlsym(library, "ncclAlltoAll");
  dlclose(library);
  if (symbol == nullptr)
    throw aisp::Unavailable("the loaded NCCL has no ncclAlltoAll (added in NCCL 2.7; this is " +
                            std::to_string(aisp::nccl_functions().version) +
                            "): install NCCL 2.7 or later");
  return reinterpret_cast<NcclAlltoAllFunction>(symbol);
}

}  // namespace aisp::ch04
#endif
