#include "tvis/profiles/problem.h"

namespace tvis::profiles {

std::string Problem::text() const {
  std::string out;
  if (!file.empty()) {
    out = file;
    if (line > 0) out += ":" + std::to_string(line);
    if (line > 0 && column > 0) out += ":" + std::to_string(column);
    out += ": ";
  }
  if (!field.empty()) out += field + ": ";
  return out + message;
}

}  // namespace tvis::profiles
