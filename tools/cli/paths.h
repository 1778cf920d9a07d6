// paths.h: plain path arithmetic the commands share (no globbing, no ~).
#pragma once

#include <string>

namespace tvis::cli {

/// `p` made absolute against the current directory (unchanged if absolute).
std::string absolute_path(const std::string& p);

/// realpath(p) when `p` exists, else absolute_path(p).
std::string real_or_absolute(const std::string& p);

/// The folder part of `p`: "." without a slash, "/" for "/x".
std::string parent_dir(const std::string& p);

/// The folder holding this executable (/proc/self/exe), "" if unknown.
std::string self_exe_dir();

}  // namespace tvis::cli
