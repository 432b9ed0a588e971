// Test-only: ch04's moe_all_to_all host code, compiled into aisp_test_suite from its one source
// (the test suite does not link the chapters).
#include "../../../chapters/ch04_multi_gpu/moe_all_to_all_common.cpp"
#include "../../../chapters/ch04_multi_gpu/nccl_all_to_all.cpp"
