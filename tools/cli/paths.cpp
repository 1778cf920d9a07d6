#include "paths.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace tvis::cli {

std::string absolute_path(const std::string& p) {
  if (!p.empty() && p[0] == '/') return p;
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) return p;
  return std::string(buf) + "/" + p;
}

std::string real_or_absolute(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : absolute_path(p);
}

std::string parent_dir(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
}

std::string self_exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return parent_dir(buf);
}

}  // namespace tvis::cli
