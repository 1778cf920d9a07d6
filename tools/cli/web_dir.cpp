#include "web_dir.h"

#include <cstdlib>

#include "paths.h"
#include "process.h"

namespace tvis::cli {

std::vector<std::string> web_dir_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TVIS_WEB_DIR"); env && *env) out.push_back(env);
  const std::string bin = self_exe_dir();
  if (!bin.empty()) {
    out.push_back(bin + "/../web");
    out.push_back(bin + "/../share/tvis/web");
    out.push_back(bin + "/../tvis/web");
    out.push_back(bin + "/web");
  }
#ifdef TVIS_WEB_DIR_DEFAULT
  out.push_back(TVIS_WEB_DIR_DEFAULT);
#endif
  return out;
}

std::string find_web_dir(std::string* error) {
  const auto dirs = web_dir_candidates();
  for (const auto& d : dirs)
    if (is_file(d + "/viewer.html") && is_file(d + "/viewer.js") && is_file(d + "/viewer.wasm")) return real_or_absolute(d);
  std::string looked;
  for (const auto& d : dirs) looked += (looked.empty() ? "" : ", ") + d;
  *error = "the browser viewer (viewer.html, viewer.js, viewer.wasm) was not found in " + looked +
           "; build it (tools/bootstrap) or set TVIS_WEB_DIR";
  return "";
}

}  // namespace tvis::cli
