// loss_entry.cpp: loss_entry.h.
#include "tvis/viewer_model/loss_entry.h"
#include "tvis/format/fb_string.h"

namespace tvis::viewer {

namespace {

using format::str;

}  // namespace

LossEntry loss_entry(const schema::LossRecord& rec, int backward) {
  LossEntry e;
  e.step = rec.step();
  e.backward = backward;
  e.event = rec.event();
  e.value = rec.value();
  e.value_repr = str(rec.value_repr());
  e.call = str(rec.call());
  e.outer = str(rec.outer());
  e.reduction = str(rec.reduction());
  if (rec.args())
    for (const auto* kv : *rec.args())
      if (kv && kv->key()) e.args.push_back({kv->key()->str(), str(kv->value())});
  e.call_value = rec.call_value();
  e.followed_samples = rec.samples() ? static_cast<int64_t>(rec.samples()->size()) : 0;
  e.logits = rec.logits();
  e.targets = rec.targets();
  if (rec.samples())
    for (const schema::SampleLoss* sl : *rec.samples())
      e.samples.push_back({sl->sample(), sl->batch_row(), sl->target(), sl->predicted(), sl->p_target(),
                           sl->neg_log_p(), sl->loss()});
  return e;
}

}  // namespace tvis::viewer
