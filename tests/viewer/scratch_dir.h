// A folder for the files one test_viewer process writes, removed when the
// process exits. Tests write their run files here instead of naming their own
// folders under /tmp, so a test run leaves nothing behind.
#pragma once

#include <filesystem>
#include <string>

namespace tvis::test {

// The process's scratch folder (created on first use, under the system temp
// folder, named after the pid). Removed with its contents at normal exit.
const std::filesystem::path& scratch_dir();

// scratch_dir() / name, as a string.
std::string scratch_path(const std::string& name);

}  // namespace tvis::test
