#include "child_process.h"

namespace tvis::profiles::detail {

tvis::process::Result run_child(const std::vector<std::string>& argv, const std::string& input, const std::string& cwd,
                                int64_t timeout_ms) {
  using tvis::process::Stdio;
  tvis::process::SpawnOptions o;
  o.argv = argv, o.cwd = cwd;
  o.in = o.out = o.err = Stdio::Pipe;
  o.own_group = o.die_with_parent = true;
  tvis::process::Pump p;
  p.input = input, p.limit_ms = timeout_ms;
  return tvis::process::run(o, p);
}

}  // namespace tvis::profiles::detail
