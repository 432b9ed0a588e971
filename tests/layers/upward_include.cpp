// A file of the measure layer that includes a header of the run layer, above it. It must not
// compile: tests/layers/test_upward_include.sh builds it and expects the include to be refused.
#include "run/suite_runner.hpp"

int aisp_layer_probe_upward() { return 0; }
