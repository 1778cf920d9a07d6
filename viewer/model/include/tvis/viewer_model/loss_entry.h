// loss_entry.h: one loss record as the pages show it, a plain value copied
// out of its LossRecord once, when the Loss chunk is indexed (Losses).
//
// Contract: no FlatBuffers type crosses this header's structs; `backward`
// is the record's position among its step's records in event order (a GAN's
// discriminator step: 0 the real loss, 1 the fake one), fixed once every
// Loss chunk of the step is indexed.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tvis/viewer_model/records.h"

namespace tvis::viewer {

/// LossRecord.event when no recognised loss call fed the loss (a custom loss).
inline constexpr uint64_t kNoLossEvent = UINT64_MAX;

/// One recorded argument of the loss call: its name and Python repr.
struct LossArgument {
  std::string key, value;
};

/// A followed sample's part of the loss, as the recorder analysed it.
struct SampleLossPart {
  int sample = -1;           // followed sample id (or batch row)
  int64_t batch_row = -1;
  int64_t target = -1, predicted = -1;  // class ids (-1: not recorded)
  double p_target = std::nan(""), neg_log_p = std::nan(""), loss = std::nan("");
};

struct LossEntry {
  int step = -1;
  int backward = 0;                // position among the step's loss records
  uint64_t event = kNoLossEvent;   // the loss call's event (kNoLossEvent: a custom loss)
  double value = std::nan("");     // the loss backward() ran on
  std::string value_repr;          // its recorded repr ("" when none was kept)
  std::string call;                // "torch.nn.functional.cross_entropy"; "" for a custom loss
  std::string outer;               // grad_fn of backward()'s tensor when not the call's output ("" else)
  std::string reduction;           // the call's reduction as recorded ("" when not named)
  std::vector<LossArgument> args;  // the call's arguments, in recorded order
  double call_value = std::nan("");  // the call's own output (NaN when not recorded)
  int64_t followed_samples = 0;    // rows of the batch the recorder analysed itself
  int64_t logits = -1;             // tensor id of the logits (-1: not recorded)
  int64_t targets = -1;            // tensor id of the targets (-1: not recorded)
  std::vector<SampleLossPart> samples;  // the followed samples' parts, in recorded order
  /// The part of followed sample `sample`, or nullptr.
  const SampleLossPart* part_of(int sample) const {
    for (const SampleLossPart& p : samples)
      if (p.sample == sample) return &p;
    return nullptr;
  }
};

/// `rec` copied out, at position `backward` of its step.
LossEntry loss_entry(const schema::LossRecord& rec, int backward);

}  // namespace tvis::viewer
