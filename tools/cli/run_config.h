// run_config.h: the run's configuration as it crosses from `tvis run` to its
// runner: one RunConfig (schema/recording.fbs, where every default lives).
#pragma once

#include <string>

#include "tvis/schema/recording_generated.h"

namespace tvis::cli {

/// The environment variable a process tvis did not start itself finds the
/// run's configuration in (a rank `tvis run` that --nproc-per-node's
/// torch.distributed.run starts; the runner of a rank a launcher re-runs,
/// recorder/python/tvis/session/child_ranks.py): run_config_json's text.
inline constexpr const char* kRunConfigEnv = "TVIS_RUN_CONFIG";

/// `c` as one JSON object, every field spelled as in the schema and written
/// even when it is the default (the runner reads it with json.loads and hands
/// it whole to Session); a string field left empty is left out.
std::string run_config_json(const schema::RunConfigT& c);

}  // namespace tvis::cli
