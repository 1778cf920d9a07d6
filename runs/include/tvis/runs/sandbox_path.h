// sandbox_path.h: a path a client names, resolved under a root folder it must
// not leave (the future `tvis agent` serves only its runs folder).
#pragma once

#include <string>

namespace tvis::runs {

/// `requested` (relative to `root`; absolute paths and any ".." component
/// are refused outright) resolved against the real path of `root`, with every
/// existing component's symlinks followed: the result must lie inside root.
/// The last components may not exist yet (a file about to be created); they
/// are then appended as given. Returns the absolute path, or "" with `error`
/// set to one line ("path escapes ROOT: REQ", "absolute path refused: REQ",
/// "no such root folder: ROOT").
std::string sandboxed_path(const std::string& root, const std::string& requested, std::string* error);

}  // namespace tvis::runs
