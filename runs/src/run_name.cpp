#include "tvis/runs/run_name.h"

#include <cctype>
#include <cstdio>

namespace tvis::runs {

namespace {

bool stem_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

/// True for "YYYYmmdd-HHMMSS": 8 digits, '-', 6 digits.
bool is_stamp(const std::string& s) {
  if (s.size() != 15 || s[8] != '-') return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != 8 && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

}  // namespace

std::string script_stem(const std::string& script_path) {
  const auto slash = script_path.rfind('/');
  std::string base = slash == std::string::npos ? script_path : script_path.substr(slash + 1);
  const auto dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  for (char& c : base)
    if (!stem_char(c)) c = '_';
  return base.empty() ? "script" : base;
}

std::string run_folder_name(std::time_t when, const std::string& stem, unsigned id) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  char hex[16];
  std::snprintf(hex, sizeof hex, "%06x", id & 0xFFFFFFu);
  return std::string(stamp) + "_" + stem + "_" + hex;
}

std::optional<RunName> parse_run_folder_name(const std::string& name) {
  const auto first = name.find('_');
  if (first == std::string::npos || !is_stamp(name.substr(0, first))) return std::nullopt;
  RunName r;
  r.stamp = name.substr(0, first);
  const auto last = name.rfind('_');
  if (last > first) {
    r.stem = name.substr(first + 1, last - first - 1);
    r.id = name.substr(last + 1);
  } else {
    r.stem = name.substr(first + 1);
  }
  return r;
}

}  // namespace tvis::runs
