// Everything a benchmark author includes.
#pragma once

#include "aisp/benchmark.hpp"
#include "aisp/check.hpp"
#include "aisp/context.hpp"
#include "aisp/dtype.hpp"
#include "aisp/graph_capture.hpp"
#include "aisp/host_inputs.hpp"
#include "aisp/tensor.hpp"
