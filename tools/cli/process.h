// process.h: the file checks that decide whether something can be started,
// and exec in place (tvis_process starts and waits for children: spawn.h,
// run.h, wait.h; an interpreter is probed by its pin, interpreter_pin.h).
// POSIX only.
#pragma once

#include <string>
#include <vector>

namespace tvis::cli {

/// A regular file (after symlinks).
bool is_file(const std::string& p);
/// A regular file this process may execute.
bool is_executable(const std::string& p);
/// A file starting with the ELF magic (a binary, not a script or shim).
bool is_elf(const std::string& p);

/// execv(argv[0], argv). Returns only if the exec failed (errno set).
void exec_argv(const std::vector<std::string>& argv);

}  // namespace tvis::cli
