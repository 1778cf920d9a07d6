// step_stops.h: the places Replay stops at within one recorded step, in the
// order training went through them: data (the fetch, each dataset item and
// transform), forward (every call, containers before their parts), loss,
// backward (the module calls again, in the order their gradients arrived
// as recorded: a gradient's tensor id is given as its hook runs; a run
// without grad_outputs plays the forward tree's reverse post-order, where a
// container comes before its last part and the first layer comes last),
// optimizer.
//
// Contracts:
//   - Non-blocking: plan(step) is nullptr while an Events chunk of the step
//     is still read (the reads are in flight); once every one was read (or
//     failed) the plan is built once and kept until the run changes or grows.
//   - One owner: the RunModel (RunModel::step_stops()); Replay, Loss and the
//     diagram ask it, none keeps its own.
//   - Events of a phase this viewer does not know (a later schema's
//     evaluation phase, Phase::None) are not stops; they are counted in
//     StepPlan::other_events so the page can say what it skipped.
//   - A backward stop's `event` is the forward call whose dL/d(output) it
//     shows (the recorder attaches gradients to the forward call).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tvis/viewer_model/call_ref.h"
#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

class RunModel;

struct Stop {
  uint64_t event = 0;
  schema::Phase phase = schema::Phase::None;  // the phase the stop is played in
  schema::EventKind kind = schema::EventKind::ModuleCall;
  std::string name;     // module path or function qualname
  std::string cls;      // module class ("" for functions)
  int depth = 0;        // call depth within the step (0: top level)
  bool leaf = false;    // a module call with no module call inside it
  bool layer = false;   // a stop of the "layer" step size (see StepPlan)
};

struct StepPlan {
  int step = -1;
  /// Every stop, in replay order. The "layer" step size visits the stops
  /// whose `layer` is true: leaf module calls in forward and backward; in the
  /// other phases every stop but the project's function calls (all of them
  /// when a phase has nothing else).
  std::vector<Stop> stops;
  /// Index of the first stop of each known phase present (Data..Optimizer).
  std::map<schema::Phase, size_t> phase_first;
  uint64_t other_events = 0;  // events of unknown phases (not stops)
  bool unreadable = false;    // some Events chunk of the step failed
  /// The first stop of `phase` at or after nothing: -1 when absent.
  int first_of(schema::Phase phase) const;
  /// The stop index showing `event` in `phase` (-1 if none).
  int find(uint64_t event, schema::Phase phase) const;
  /// The first stop of `phase` whose name is `name` (-1 if none).
  int find_name(const std::string& name, schema::Phase phase) const;
};

class StepStops {
 public:
  explicit StepStops(RunModel& model) : model_(model) {}
  void reset() { plans_.clear(); }
  /// The plan of `step`, or nullptr while its events load (asks for them).
  const StepPlan* plan(int step);
  /// Asks for the Events chunks of `step` without building anything.
  void prefetch(int step);
  /// How many plans are kept: one per step asked for, so a page that asks
  /// only for the steps it shows keeps a screenful, whatever the run claims.
  size_t plan_count() const { return plans_.size(); }

 private:
  RunModel& model_;
  std::map<int, std::unique_ptr<StepPlan>> plans_;
};

/// Builds a plan from the events of one step (any order; tests call it
/// directly). `events` must all belong to the step.
StepPlan build_step_plan(int step, const std::vector<const schema::Event*>& events);

/// Where a step's batch is: the DataLoader fetch call's outputs when it was
/// recorded with them, else the first forward call's inputs (the batch as the
/// model received it). `holder` is empty when the step has neither.
struct StepBatch {
  CallRef holder;
  std::vector<uint64_t> parts;  // holder's outputs or inputs (tensor ids), never empty with a holder
  CallRef fetch;                // the step's DataFetch call, if any
};
StepBatch step_batch(RunModel& model, const StepPlan& plan);

/// "data" .. "optimizer" -> the phase; Phase::None for anything else.
schema::Phase phase_from_label(const std::string& label);

}  // namespace tvis::viewer
