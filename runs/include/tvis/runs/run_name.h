// run_name.h: how a run folder is named. A run is the folder
//   <runs folder>/<YYYYmmdd-HHMMSS>_<script stem>_<id>/
// holding kRunFileName; <YYYYmmdd-HHMMSS> is local time when the run was
// created, <id> six hex digits that keep names unique among processes started
// in the same second. The layout is described in docs/run_layout.md.
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace tvis::runs {

/// The file inside a run folder that holds the recording.
inline constexpr const char* kRunFileName = "run.tvis";

/// The <script stem> part for `script_path`: the file name without its last
/// extension, every character other than [A-Za-z0-9._-] replaced by '_';
/// "script" when nothing is left. Never contains '/'.
std::string script_stem(const std::string& script_path);

/// "<YYYYmmdd-HHMMSS>_<stem>_<id>" for local time `when` and the low 24 bits
/// of `id` (six lowercase hex digits).
std::string run_folder_name(std::time_t when, const std::string& stem, unsigned id);

/// The parts of a run folder name made by run_folder_name().
struct RunName {
  std::string stamp;  // YYYYmmdd-HHMMSS: sorts as the creation time
  std::string stem;
  std::string id;
};

/// The parts of `name`, or nullopt when it does not start with a
/// YYYYmmdd-HHMMSS stamp followed by '_' (a folder renamed by the user).
std::optional<RunName> parse_run_folder_name(const std::string& name);

}  // namespace tvis::runs
