// resolution.h: what one request means. A request names a class
// (module:Class), a profile (--profile NAME), or both, and resolves to
// exactly one invocation or a refusal, never a substitute:
//   - a named profile: that profile (refused when absent, invalid, a script
//     profile, or for another class);
//   - a class with one matching model profile: that profile;
//   - several: the remembered choice when it is still one of them (a
//     removed or retargeted choice refuses), else `choose` (the front end
//     asks once and calls resolve_pick());
//   - none: the class's input declaration, refused when the declaration
//     needs explicit setup; without one, `automatic` (issue 17 derives one
//     example from the constructed model).
// An invalid tensorviz.toml refuses every request: a malformed profile for
// another class is still an error.
#pragma once

#include <string>
#include <vector>

#include "tvis/profiles/choices.h"
#include "tvis/profiles/config.h"
#include "tvis/profiles/model_classes.h"

namespace tvis::profiles {

struct Request {
  std::string class_ref;  // "module:Class" or ""
  std::string profile;    // "--profile NAME" or ""
};

enum class Resolved { profile, choose, declaration, automatic, refused };
const char* resolved_name(Resolved r);

struct Resolution {
  Resolved status = Resolved::refused;
  std::string profile;                  // for `profile`
  bool remembered = false;              // the profile came from the remembered choice
  std::vector<std::string> candidates;  // for `choose` (and listed in refusals)
  std::string reason;                   // one line: why refused / what to do
};

Resolution resolve(const Request& r, const Config& config, const std::vector<ModelClass>& classes,
                   const Choices& choices);

/// After the picker: `picked` ("" = cancelled). Resolves `r` again and
/// accepts the pick only if it is still one of the candidates; a cancelled
/// picker or a vanished pick refuses. On success the choice is remembered
/// in `root` (a failure to save refuses too, saying why).
Resolution resolve_pick(const Request& r, const std::string& picked, const Config& config,
                        const std::vector<ModelClass>& classes, const std::string& root);

}  // namespace tvis::profiles
