// Test-only: the kernels ch04's moe_all_to_all pairs use (chapters/common's routing and sort,
// ch04's packing), compiled into aisp_test_suite from their one source.
#include "../../../chapters/ch04_multi_gpu/moe_all_to_all_kernels.cu"
#include "../../../chapters/common/moe_routing.cu"
