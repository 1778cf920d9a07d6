// mode (cases eval_mode_in_training / train_mode_in_evaluation): modules whose output
// depends on module.training (dropout with p > 0, BatchNorm with running
// statistics) called in the wrong mode. The recorder marks each call of such
// a module with EventDetail.training, and the top-level call with
// EventDetail.model_training (recorder/python/tvis/session/modes.py).
//
// eval_mode_in_training: in a training forward (phase Forward: a backward of
//   the step reached it) a mode-sensitive module ran in eval mode: dropout
//   off, BatchNorm normalising with its running statistics. A warning when
//   the model itself was in eval mode (model.eval() never undone); a note
//   when only some modules were (frozen by hand: intended when BatchNorm is
//   frozen for fine-tuning).
// train_mode_in_evaluation: in an evaluation (phase Evaluation: gradients
//   off, or a forward no backward reached) a mode-sensitive module ran in
//   train mode: dropout drops units and BatchNorm normalises with the batch's
//   statistics and moves its running statistics. A note, not a warning, in
//   a run whose steps hold several optimizers' updates (adversarial
//   training): a GAN samples its generator under no_grad in train mode on
//   purpose, to feed the discriminator or to draw progress images.
// Each is reported once, at the first step where it happens.
#include <map>
#include <set>

#include "check_util.h"
#include "tvis/analysis/diagnose.h"

namespace tvis::analysis {

namespace {

/// Modules of one step in the wrong mode, in call order.
struct Wrong {
  int step = -1;
  uint64_t event = 0;
  std::vector<std::string> modules;  // distinct names
  std::set<std::string> classes;
  bool model_wrong = false;  // the top-level call itself was in the wrong mode
};

void note_module(Wrong& w, const EventFact& e) {
  if (w.modules.empty()) w.event = e.id, w.step = e.step;
  for (const std::string& m : w.modules)
    if (m == e.name) return;
  w.modules.push_back(e.name);
  w.classes.insert(e.class_name);
}

std::string classes_of(const std::set<std::string>& classes) {
  std::vector<std::string> v(classes.begin(), classes.end());
  return names_of(v, 3);
}

Finding report(const char* kind, Severity severity, std::string message, const Wrong& w, size_t steps,
               Phase phase) {
  // One kind, "mode", for both mistakes; evidence "case" says which (the former kind name).
  Finding f = finding("mode", severity, std::move(message), w.step, w.event);
  f.evidence = {{"case", 0, kind},
                {"modules", double(w.modules.size())},
                {"steps", double(steps)},
                {"model_mode_wrong", w.model_wrong ? 1.0 : 0.0},
                {"module", 0, w.modules.front()}};
  f.where.subject = Subject::Call, f.where.phase = phase, f.where.module = w.modules.front();
  return f;
}

/// What the wrong mode did, by the classes it hit: dropout, BatchNorm or both.
std::string effect(const std::set<std::string>& classes, bool training_mode) {
  bool dropout = false, norm = false;
  for (const std::string& c : classes)
    (c.find("Norm") != std::string::npos ? norm : dropout) = true;
  std::string d = training_mode ? "dropout dropped units" : "dropout was off";
  std::string n = training_mode ? "BatchNorm normalised with the batch's statistics and moved its running statistics"
                                : "BatchNorm normalised with its running statistics";
  return dropout && norm ? d + " and " + n : (norm ? n : d);
}

/// Whether some step holds the updates of more than one optimizer.
bool several_optimizers(const RunFacts& facts) {
  std::map<int, int> per_step;
  for (const StepFact& s : facts.steps())
    if (++per_step[s.step] > 1) return true;
  return false;
}

}  // namespace

void check_modes(const RunFacts& facts, std::vector<Finding>& out) {
  std::map<int, Wrong> eval_in_training, train_in_eval;  // by step
  std::map<int, bool> model_eval, model_train_in_eval;   // the step's top-level calls
  for (const EventFact& e : facts.events()) {
    if (e.kind != EventKind::ModuleCall) continue;
    const bool training = e.phase == Phase::Forward, evaluation = e.phase == Phase::Evaluation;
    if (!training && !evaluation) continue;
    if (const flatbuffers::Optional<bool> m = e.detail->model_training()) {
      if (training && !*m) model_eval[e.step] = true;
      if (evaluation && *m) model_train_in_eval[e.step] = true;
    }
    const flatbuffers::Optional<bool> t = e.detail->training();
    if (!t) continue;
    if (training && !*t) note_module(eval_in_training[e.step], e);
    if (evaluation && *t) note_module(train_in_eval[e.step], e);
  }
  if (!eval_in_training.empty()) {
    Wrong w = eval_in_training.begin()->second;
    w.model_wrong = model_eval.count(w.step) > 0;
    const std::string which = names_of(w.modules, 3) + " (" + classes_of(w.classes) + ")";
    std::string msg = w.model_wrong
        ? "the training forward of step " + std::to_string(w.step) + " ran with the model in eval mode, so " + which +
              " computed as in evaluation (" + effect(w.classes, false) +
              "): call model.train() before the training steps."
        : "in the training forward of step " + std::to_string(w.step) + " the model was in train mode but " + which +
              " ran in eval mode (" + effect(w.classes, false) +
              "): intended when they are frozen on purpose, a mistake otherwise.";
    out.push_back(report("eval_mode_in_training", w.model_wrong ? Severity::Warning : Severity::Note, std::move(msg),
                         w, eval_in_training.size(), Phase::Forward));
  }
  if (!train_in_eval.empty()) {
    Wrong w = train_in_eval.begin()->second;
    w.model_wrong = model_train_in_eval.count(w.step) > 0;
    const std::string which = names_of(w.modules, 3) + " (" + classes_of(w.classes) + ")";
    const bool adversarial = several_optimizers(facts);
    out.push_back(report(
        "train_mode_in_evaluation", adversarial ? Severity::Note : Severity::Warning,
        "an evaluation at step " + std::to_string(w.step) + " ran " + which + " in train mode (" +
            effect(w.classes, true) + ")" +
            (adversarial ? ": usual when a GAN samples its generator under no_grad; otherwise call model.eval() "
                           "before evaluating."
                         : ": call model.eval() before evaluating."),
        w, train_in_eval.size(), Phase::Evaluation));
  }
}

}  // namespace tvis::analysis
