// inspect_json.h: the `tvis inspect --json` object (keys in docs/cli.md) for a
// RunSummary, keys in the documented order, losses with Python repr() digits.
#pragma once

#include <string>

#include "tvis/format/run_summary.h"

namespace tvis::cli {

/// The JSON text, ending in a newline.
std::string inspect_json(const tvis::format::RunSummary& summary);

}  // namespace tvis::cli
