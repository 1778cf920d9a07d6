// child_process.h (private): how profiles/ runs its short probe children (the
// interpreter's version probe, the source reader): tvis_process's spawn and
// pump with the settings they share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tvis/process/run.h"

namespace tvis::profiles::detail {

/// Runs argv (argv[0] searched in PATH when it has no '/') in `cwd` with
/// `input` on its stdin, collecting stdout and stderr; in a process group of
/// its own, SIGKILLed when tvis ends, and killed (the whole group) after
/// `timeout_ms` whatever it does (a child that closes its stdout and stderr
/// and sleeps included): Result::timed_out.
tvis::process::Result run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd,
                                int64_t timeout_ms = 60'000);

}  // namespace tvis::profiles::detail
