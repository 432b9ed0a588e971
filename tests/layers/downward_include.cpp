// A file of the measure layer that includes headers of its own layer and of the layers below it
// (system, core): it must compile, which shows the refusal of upward_include.cpp is the layering
// and not a broken probe.
#include "core/measurement_settings.hpp"
#include "measure/stopping_criterion.hpp"
#include "system/ceilings.hpp"

int aisp_layer_probe_downward() { return 0; }
