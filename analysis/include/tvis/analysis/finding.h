// finding.h: one thing diagnose found, with its evidence and where it shows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

enum class Severity : int { Error = 0, Warning = 1, Note = 2 };  // worst first
const char* severity_name(Severity s);

/// What a finding (or a difference of two runs) is about. No viewer page is
/// named here: links/ (tvis/links/page_link.h) maps each subject to the page
/// that shows it, for the CLI and the viewer alike.
enum class Subject : int {
  Run = 0,        // the run as a whole (no one place: ranks missing)
  Call,           // a module or function call (`module`), in `phase` of `step`
  Batch,          // the data a step read (phase Data)
  Loss,           // a loss call or the loss curve
  Parameter,      // one parameter (`param`): its weight, gradient or update
  OptimizerStep,  // an optimizer step as a whole (its learning rates, its count)
};
/// Every subject, for code (and tests) that must handle each one.
inline constexpr Subject kSubjects[] = {Subject::Run,  Subject::Call,      Subject::Batch,
                                        Subject::Loss, Subject::Parameter, Subject::OptimizerStep};
static_assert(sizeof kSubjects / sizeof kSubjects[0] == size_t(Subject::OptimizerStep) + 1, "list every Subject");
/// "run", "call", "batch", "loss", "parameter", "optimizer_step".
const char* subject_name(Subject s);

/// Where a finding shows, in the training's own terms: step, phase, module,
/// parameter and the tensor's role, each only where it applies (step -1,
/// Phase::None, "" and no role: not applicable).
struct Position {
  Subject subject = Subject::Run;
  int step = -1;
  Phase phase = Phase::None;
  std::string module;         // a call's module path
  std::string param;          // a parameter's name
  std::optional<Role> role;   // the tensor the finding judged, where one did
};

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
