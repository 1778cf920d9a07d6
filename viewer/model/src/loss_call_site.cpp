// loss_call_site.cpp: loss_call_site.h.
#include "tvis/viewer_model/loss_call_site.h"

#include "tvis/viewer_model/loss_analysis.h"
#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

LossCallSite loss_call_site(RunModel& model, const LossEntry& loss) {
  LossCallSite site;
  if (loss.call.empty() || loss.event == kNoLossEvent) return site;
  const schema::Event* e = model.event(loss.event);
  if (!e) {
    if (!model.event_failure(loss.event) && model.event_count() > loss.event) site.state = LossCallSite::State::Loading;
    return site;
  }
  if (!is_loss_call_event(loss, *e)) return site;
  site.state = LossCallSite::State::Found;
  site.file_id = e->call_file();
  site.line = e->call_line();
  site.file = model.source_files().name(site.file_id);
  site.text = model.source_files().line(site.file_id, site.line);
  return site;
}

}  // namespace tvis::viewer
