// diagnose.h: every check over a run's facts, findings worst first.
//
// Each check reads statistics, shapes and indexes only (RunFacts), states a
// finding only on evidence it can show as numbers, and says nothing where
// the run does not hold what it needs. Thresholds are the constants at the
// top of each check's file.
#pragma once

#include <string>
#include <vector>

#include "tvis/analysis/finding.h"
#include "tvis/analysis/run_facts.h"

namespace tvis::analysis {

/// The checks' kinds, in the order they run (docs/diagnose.md).
const std::vector<std::string>& check_kinds();

/// Every check; errors first, then warnings, then notes; within one
/// severity, earlier steps and calls first.
std::vector<Finding> diagnose(const RunFacts& facts);

/// The rank files of one distributed run read together: every check on the
/// first (rank 0's, or the one rank given), then the cross-rank checks
/// (check_ranks); ordered as diagnose(facts).
std::vector<Finding> diagnose(const std::vector<const RunFacts*>& ranks);

/// Orders findings as diagnose() does: errors, then warnings, then notes;
/// within one severity, earlier steps and calls first; stable otherwise
/// (the viewer merges the shown rank's findings with check_ranks' this way).
void order_worst_first(std::vector<Finding>& findings);

/// Why a run gives the checks nothing to judge, or "" when it does:
/// recording stopped after an internal error of the recorder (its
/// "recorder_error" notice: what follows it was not recorded, so silence
/// would be a false "healthy"), the run is a model capture (tvis graph /
/// check: no training at all), or the run holds no completed optimizer step
/// (then only findings at warning or error stand on their own; a caller
/// reports the reason instead of "no findings").
std::string nothing_to_judge(const RunFacts& facts);

// The checks, each in its own file.
void check_non_finite(const RunFacts& facts, std::vector<Finding>& out);
void check_gradient_flow(const RunFacts& facts, std::vector<Finding>& out);
void check_updates(const RunFacts& facts, std::vector<Finding>& out);
void check_loss_inputs(const RunFacts& facts, std::vector<Finding>& out);
void check_loss_scale(const RunFacts& facts, std::vector<Finding>& out);
void check_data(const RunFacts& facts, std::vector<Finding>& out);
void check_loss_trend(const RunFacts& facts, std::vector<Finding>& out);
void check_modes(const RunFacts& facts, std::vector<Finding>& out);
void check_carried_grads(const RunFacts& facts, std::vector<Finding>& out);
void check_dead_units(const RunFacts& facts, std::vector<Finding>& out);
void check_unoptimized(const RunFacts& facts, std::vector<Finding>& out);
void check_eval_scale(const RunFacts& facts, std::vector<Finding>& out);
void check_lr_schedule(const RunFacts& facts, std::vector<Finding>& out);
void check_loss_shape(const RunFacts& facts, std::vector<Finding>& out);
void check_ranks(const std::vector<const RunFacts*>& ranks, std::vector<Finding>& out);

}  // namespace tvis::analysis
