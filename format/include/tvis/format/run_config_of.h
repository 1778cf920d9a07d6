// run_config_of.h: a run's configuration (schema/recording.fbs: RunConfig)
// from its RunMeta, for the readers (`tvis inspect`, the viewer).
#pragma once

#include "tvis/schema/recording_generated.h"

namespace tvis::format {

/// `meta.config` as the recorder stored it. A run written before RunConfig
/// has none: then the settings its `options` strings carried (steps,
/// max_elems, samples, max_run_bytes, eval_values, no_gradcam, gradcam_true,
/// as `tvis run` wrote them then) and RunMeta.project_dir; a setting it left
/// out, or whose text is not a whole number in range, reads as the schema's
/// default. Never fails.
schema::RunConfigT run_config_of(const schema::RunMeta& meta);

}  // namespace tvis::format
