// finding.h: one thing diagnose found, with its evidence and where it shows.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tvis::analysis {

enum class Severity : int { Error = 0, Warning = 1, Note = 2 };  // worst first
const char* severity_name(Severity s);

/// A position in the viewer: the link keys page, step, phase, module, param
/// (docs/viewer_test_surface.md). Empty strings and step -1 are left out.
struct Position {
  std::string page = "Replay";
  int step = -1;
  std::string phase, module, param;
};

/// The position as URL query keys, as the viewer reads them from its address
/// ("page=Replay&step=0&phase=forward&module=layer1.0.conv2"); characters
/// other than letters, digits and -._~:/ are percent-encoded.
std::string link_query(const Position& w);

struct Evidence {
  std::string key;
  double number = 0;
  std::string text;  // used instead of number when not empty
};

struct Finding {
  std::string kind;      // stable: "non_finite", "exploding_gradients", ... (docs/diagnose.md)
  Severity severity = Severity::Note;
  std::string message;   // one sentence a practitioner would accept
  std::vector<Evidence> evidence;
  Position where;
  // Order among findings of one severity: earlier in the training first.
  int order_step = 0;
  uint64_t order_event = 0;
};

}  // namespace tvis::analysis
