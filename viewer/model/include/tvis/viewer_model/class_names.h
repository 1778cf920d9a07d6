// class_names.h: a classifier's class names and the module call that
// produced its logits, for labelling a layer's output by class (Replay's and
// Explore's Neurons bars, the Loss page's sample list and confusion matrix).
//
// Contract: non-blocking like every model index: answers from what is
// resident and says "not (yet) known" as empty / false.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

class RunModel;

/// Adds sample `smp`'s class name when it has one: a label other than its
/// index (a dataset's `classes`; the recorder writes the index itself when
/// the dataset names none).
void add_class_name(std::map<int64_t, std::string>& names, const schema::Sample* smp);

/// label_index -> name over the followed samples of `step` (partial while a
/// Samples chunk of the step loads).
std::map<int64_t, std::string> class_names_at(RunModel& model, int step);

/// label_index -> name over the followed samples of every step with a loss
/// record (the batches the confusion matrix counts). *complete is false
/// while the loss index or a Samples chunk of those steps is still read
/// (the names then are those read so far; empty before the index is ready).
std::map<int64_t, std::string> class_names_of_losses(RunModel& model, bool* complete);

/// Whether module call `event`'s output (its first Output record) is the
/// tensor a loss of `step` took as logits: the same shape and bit-identical
/// statistics as that loss call's Logits record. False when unknown yet.
bool produced_logits(RunModel& model, uint64_t event, int step);

}  // namespace tvis::viewer
