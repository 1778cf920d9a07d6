// Replay's phase views, beside the diagram: what the current stop shows.
//   data       the batch as loaded (image grid, token strips or a table) and
//              the followed sample through each transform of its dataset
//   forward    the layer panel (activation) for the current module call
//   loss       the value, the loss call and its source line
//   backward   the layer panel (gradient dL/d(output))
//   optimizer  the optimizer, its hyperparameters and the update per layer
// A part the run does not hold says why, in place.
#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "../panels/panel_labels.h"
#include "../panels/picture.h"
#include "../panels/tensor_picture.h"
#include "../theme.h"
#include "replay_state.h"
#include "tvis/widgets/format_number.h"

namespace tvis::viewer {

namespace {

// Says `text` in place and keeps it for state() (view.notes).
void say(ReplayState& r, const std::string& text, unsigned color = colors::kMuted) {
  r.notes.push_back(text);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// The batch: the DataFetch call's outputs, first one drawn row by row.
void draw_batch(AppState& s, ReplayState& r, const CallRef& holder, int step, int followed_row,
                const std::vector<uint64_t>& parts) {
  bool done = true;
  const TensorRef ref = s.model.tensors().by_id(s.model, parts[0], step, &done);
  if (!ref) {
    ImGui::TextDisabled(done ? "The batch's tensors were not recorded." : "loading the batch ...");
    return;
  }
  if (ref.rank() == 0) {  // a 0-d first part: no rows to draw
    ImGui::Text("batch: a scalar %s (no rows)", ref.dtype_label());
    return;
  }
  const Shape shape = ref.shape();
  nlohmann::json& shown = r.data_shown["batch"];
  shown = {{"tensor", ref.id()},
           {"shape", shape},
           {"dtype", ref.dtype_label()},
           {"from", holder.kind() == EventKind::DataFetch ? "DataLoader" : "model"},
           {"parts", parts.size()},
           {"followed_row", followed_row}};
  ImGui::Text("batch %s %s", ref.shape_label().c_str(), ref.dtype_label());
  ImGui::SameLine();
  ImGui::TextDisabled("as %s received it", holder.kind() == EventKind::DataFetch ? "the DataLoader yielded" : "the model");
  if (parts.size() > 1) {
    ImGui::SameLine();
    ImGui::TextDisabled("(+ %zu more part%s: targets, ...)", parts.size() - 1, parts.size() > 2 ? "s" : "");
  }
  const KeptValues kept = ref.kept();
  const int64_t rows = kept.kept == ValuesKept::LeadingRows ? kept.kept_rows
                       : kept.kept == ValuesKept::Full     ? shape[0]
                                                            : 0;
  if (rows == 0) {
    say(r, "Only the batch's statistics were kept (beyond --max-elems).");
    return;
  }
  const std::vector<int64_t> one(shape.begin() + 1, shape.end());
  const PictureLayout pl = picture_layout(one);
  const float em = ImGui::GetFontSize();
  const bool integer = ref.dtype() == DType::Int64 || ref.dtype() == DType::Int32;
  const int drawn = static_cast<int>(std::min<int64_t>(rows, 64));
  shown["rows_kept"] = rows;
  shown["rows_drawn"] = drawn;
  shown["drawn_as"] = pl.ok ? "images" : integer ? "token ids" : "values";
  if (pl.ok) {
    const float side = em * 3.6f;
    const int per_line = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / (side + 6)));
    for (int i = 0; i < drawn; ++i) {
      if (i % per_line) ImGui::SameLine();
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      draw_tensor_picture(s.model, s.selection.run, static_cast<int64_t>(ref.id()), step, side, i, &r.pictures, s.options.texture_uploader);
      if (i == followed_row)
        ImGui::GetWindowDrawList()->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + side + 2, p0.y + side + 2),
                                            colors::kAccent, 0, 0, 2.0f);
    }
    if (rows < shape[0]) ImGui::TextDisabled("first %d of %" PRId64 " rows kept", static_cast<int>(rows), shape[0]);
    return;
  }
  // Token strips or a table of the leading values.
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(ref);
  if (decoded->loading) {
    ImGui::TextDisabled("loading ...");
    return;
  }
  const TensorValues* v = &decoded->values;
  size_t per = 1;
  for (int64_t d : one) per *= static_cast<size_t>(std::max<int64_t>(d, 0));
  ImGui::TextDisabled(integer ? "token ids, one row per sample" : "values, one row per sample");
  for (int i = 0; i < drawn && static_cast<size_t>(i + 1) * per <= v->values.size(); ++i) {
    std::string line = std::to_string(i) + (i == followed_row ? " * " : "   ");
    for (size_t k = 0; k < std::min<size_t>(per, 48); ++k) {
      line += widgets::format_number(v->values[i * per + k], 3);
      line += ' ';
    }
    if (per > 48) line += "...";
    ImGui::TextUnformatted(line.c_str());
  }
}

// A sample that is not a picture (a row of token ids, a feature vector):
// its shape and leading values on one line. False when it is a picture or
// its values are not at hand (the caller draws it as a picture or a shape).
bool draw_value_line(AppState& s, int64_t id, int step) {
  if (id < 0) return false;
  bool done = true;
  const TensorRef ref = s.model.tensors().by_id(s.model, static_cast<uint64_t>(id), step, &done);
  if (!ref || ref.rank() > 1) return false;
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(ref);
  if (decoded->loading) return false;
  const TensorValues* v = &decoded->values;
  std::string line = ref.shape_label() + " " + ref.dtype_label() + ":  ";
  for (size_t k = 0; k < std::min<size_t>(v->values.size(), 48); ++k) line += widgets::format_number(v->values[k], 3) + " ";
  if (v->values.size() > 48) line += "...";
  ImGui::TextUnformatted(line.c_str());
  return true;
}

void draw_followed_sample(AppState& s, ReplayState& r, const Stop& here, int step, int sample) {
  const float em = ImGui::GetFontSize();
  std::vector<SampleEntry> samples;
  s.model.samples().step_samples(step, &samples);
  const auto smp = std::find_if(samples.begin(), samples.end(), [&](const SampleEntry& e) { return e.id == sample; });
  if (smp == samples.end()) {
    ImGui::TextDisabled("Sample %d is not in this step's batch (or its record is loading).", sample);
    return;
  }
  nlohmann::json& shown = r.data_shown["sample"];
  shown = {{"id", sample},
           {"dataset_index", smp->dataset_index},
           {"batch_row", smp->batch_position},
           {"label", smp->label},
           {"item", smp->item()},
           {"stages", nlohmann::json::array()}};
  ImGui::Text("sample %d", sample);
  ImGui::SameLine();
  ImGui::TextDisabled("dataset index %" PRId64 ", batch row %d%s%s", smp->dataset_index, smp->batch_position,
                      smp->label.empty() ? "" : ", label ", smp->label.c_str());
  if (smp->transforms.empty()) {
    ImGui::TextDisabled("No transforms recorded for it (the dataset returns it as stored).");
    if (!draw_value_line(s, smp->input, step))
      draw_tensor_picture(s.model, s.selection.run, smp->input, step, em * 8, -1, &r.pictures, s.options.texture_uploader);
    return;
  }
  const float side = em * 6.5f;
  // Stage 0: the input of the first transform, then each transform's output.
  ImGui::BeginGroup();
  ImGui::TextDisabled("item");
  draw_tensor_picture(s.model, s.selection.run, smp->item(), step, side, -1, &r.pictures, s.options.texture_uploader);
  ImGui::EndGroup();
  for (const TransformEntry& t : smp->transforms) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < side) ImGui::NewLine();
    ImGui::BeginGroup();
    const bool current = t.event == here.event;
    const std::string name = t.name.empty() ? "transform" : t.name;
    // The class name above the picture; the arguments below it, wrapped.
    const std::string cls = !t.class_name.empty() ? t.class_name : name.substr(0, name.find('('));
    shown["stages"].push_back({{"name", name},
                               {"class", cls},
                               {"output", t.output},
                               {"output_kind", value_kind_name(t.output_kind)},
                               {"current", current}});
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(current ? colors::kAccent : 0xFFFFFFFFu), "%s", cls.c_str());
    draw_tensor_picture(s.model, s.selection.run, t.output, step, side, -1, &r.pictures, s.options.texture_uploader);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + side);
    const size_t open = name.find('(');
    if (open != std::string::npos) ImGui::TextDisabled("%s", name.substr(open).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", name.c_str());
  }
}

void draw_data_view(AppState& s, ReplayState& r, const Stop& here) {
  r.data_shown = nlohmann::json::object();
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  const int sample = replay_sample(s);
  const int row = sample_row(s.model, r.step, sample);
  const StepBatch batch = step_batch(s.model, *plan);
  if (ImGui::CollapsingHeader("The batch as loaded", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (batch.holder) draw_batch(s, r, batch.holder, r.step, row, batch.parts);
    else if (!batch.fetch) say(r, "No DataLoader fetch in this step: the script built its batches itself.");
    else ImGui::TextDisabled("The batch's tensors were not recorded.");
  }
  if (ImGui::CollapsingHeader("The followed sample through its transforms", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (sample < 0) say(r, "The run follows no samples (no torch DataLoader, or --samples 0).");
    else draw_followed_sample(s, r, here, r.step, sample);
  }
}

// {shape, min, max, mean} of tensor `id` as the viewer decoded it; null
// while it loads or when it has no values.
nlohmann::json values_summary(AppState& s, int64_t id, int step,
                              std::shared_ptr<const DecodedTensor>* out = nullptr) {
  if (id < 0) return nullptr;
  const std::shared_ptr<const DecodedTensor> decoded = s.model.values().get(static_cast<uint64_t>(id), step);
  const TensorValues* v = &decoded->values;
  if (decoded->loading || v->values.empty()) return nullptr;
  if (out) *out = decoded;
  const auto [lo, hi] = std::minmax_element(v->values.begin(), v->values.end());
  double sum = 0;
  for (double x : v->values) sum += x;
  return {{"shape", v->shape}, {"min", *lo}, {"max", *hi}, {"mean", sum / static_cast<double>(v->values.size())}};
}

}  // namespace

nlohmann::json replay_data_json(AppState& s, ReplayState& r) {
  nlohmann::json out = r.data_shown;
  if (!out.is_object()) return nullptr;
  if (out.contains("batch") && out["batch"].value("drawn_as", "") != "images") {
    std::shared_ptr<const DecodedTensor> batch;
    values_summary(s, out["batch"]["tensor"].get<int64_t>(), r.step, &batch);
    const TensorValues* v = batch ? &batch->values : nullptr;
    if (v && v->shape.size() >= 1) {
      size_t per = 1;
      for (size_t d = 1; d < v->shape.size(); ++d) per *= static_cast<size_t>(std::max<int64_t>(v->shape[d], 0));
      const size_t n = std::min<size_t>({per, 48, v->values.size()});
      out["batch"]["first_row"] = std::vector<double>(v->values.begin(), v->values.begin() + static_cast<std::ptrdiff_t>(n));
    }
  }
  if (out.contains("sample")) {
    nlohmann::json& smp = out["sample"];
    smp["item_values"] = values_summary(s, smp["item"].get<int64_t>(), r.step);
    for (auto& stage : smp["stages"]) stage["values"] = values_summary(s, stage["output"].get<int64_t>(), r.step);
  }
  return out;
}

namespace {

void draw_loss_view(AppState& s, ReplayState& r, const Stop& here) {
  const std::optional<LossEntry> loss = s.model.losses().shown(r.step, 0);
  const float em = ImGui::GetFontSize();
  if (!loss) {
    if (!s.model.losses().ready()) ImGui::TextDisabled("loading the loss ...");
    else say(r, "No loss record for this step: backward() ran on a value tvis did not see computed by a known loss.");
  } else {
    ImGui::PushFont(nullptr);
    ImGui::SetWindowFontScale(1.8f);
    ImGui::Text("loss %s", !loss->value_repr.empty() ? loss->value_repr.c_str() : widgets::format_exact(loss->value).c_str());
    ImGui::SetWindowFontScale(1.0f);
    ImGui::PopFont();
    ImGui::Text("%s", loss->call.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("reduction %s", loss->reduction.empty() ? "?" : loss->reduction.c_str());
    for (const LossArgument& kv : loss->args) ImGui::TextDisabled("  %s = %s", kv.key.c_str(), kv.value.c_str());
    // The followed sample's part of it.
    const int sample = replay_sample(s);
    if (const SampleLossPart* sl = loss->part_of(sample))
      ImGui::Text("sample %d: p(target) %s  ->  -log p %s  ->  loss %s", sample,
                  widgets::format_number(sl->p_target, 4).c_str(), widgets::format_number(sl->neg_log_p, 4).c_str(),
                  widgets::format_number(sl->loss, 4).c_str());
  }
  // The call and its source line.
  const uint64_t eid = loss ? loss->event : here.event;
  if (const CallRef e = s.model.call(eid)) {
    ImGui::Spacing();
    ImGui::TextDisabled("called at %s", call_site(s.model, e.call_file(), e.call_line()).c_str());
    bool loading = false;
    const std::optional<std::string_view> text = s.model.source_files().text(e.call_file(), &loading);
    if (text && e.call_line() > 0) {
      const std::string src(*text);
      size_t begin = 0;
      for (uint32_t l = 1; l < e.call_line() && begin != std::string::npos; ++l) {
        begin = src.find('\n', begin);
        if (begin != std::string::npos) ++begin;
      }
      if (begin != std::string::npos) {
        const size_t end = src.find('\n', begin);
        const std::string line = src.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.12f, 0.12f, 0.14f, 1));
        ImGui::BeginChild("loss_src", ImVec2(0, em * 2.2f), true);
        ImGui::Text("%4u  %s", e.call_line(), line.c_str());
        ImGui::EndChild();
        ImGui::PopStyleColor();
      }
    } else if (loading) {
      ImGui::TextDisabled("loading the source ...");
    }
  }
}

void draw_optimizer_view(AppState& s, ReplayState& r) {
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  const StepMagnitudes& m = s.model.layer_magnitudes().at(*plan);
  // The step's own record names its optimizer (a killed run has no end-of-run metadata).
  const std::string& cls = m.optimizer_recorded ? m.optimizer_class : s.model.info().optimizer_class;
  if (!m.optimizer_recorded && !m.complete) {
    // said below
  } else if (cls.empty()) say(r, "A hand-written update (no torch.optim optimizer): the parameters' changes as recorded.");
  else ImGui::Text("%s.step()", cls.c_str());
  if (!m.optimizer_recorded) {
    if (!m.complete) ImGui::TextDisabled("loading the update ...");
    else say(r, "No parameter update was recorded for this step.");
    return;
  }
  ImGui::TextDisabled("update per layer: ||dw|| and ||dw|| / ||w|| (bar: log scale)");
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& [mod, ratio] : m.update_ratio)
    if (ratio > 0) {
      lo = std::min(lo, std::log10(ratio));
      hi = std::max(hi, std::log10(ratio));
    }
  const float em = ImGui::GetFontSize();
  if (ImGui::BeginTable("updates", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                        ImVec2(0, ImGui::GetContentRegionAvail().y - 4))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("layer", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("||dw||", ImGuiTableColumnFlags_WidthFixed, em * 5);
    ImGui::TableSetupColumn("||dw||/||w||", ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    // In the model's call order, then parameters of modules never called.
    std::vector<std::string> order;
    for (const Stop& st : plan->stops)
      if (st.phase == Phase::Forward && m.update_ratio.count(st.name) &&
          std::find(order.begin(), order.end(), st.name) == order.end())
        order.push_back(st.name);
    for (const auto& [mod, ratio] : m.update_ratio)
      if (std::find(order.begin(), order.end(), mod) == order.end()) order.push_back(mod);
    for (const std::string& mod : order) {
      const double ratio = m.update_ratio.at(mod);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mod.empty() ? "(top level)" : mod.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(m.update_norm.at(mod), 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(widgets::format_number(ratio, 3).c_str());
      ImGui::TableNextColumn();
      const float t = hi > lo && ratio > 0 ? static_cast<float>((std::log10(ratio) - lo) / (hi - lo)) : 1.0f;
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      const float w = ImGui::GetContentRegionAvail().x;
      ImGui::Dummy(ImVec2(w, em * 0.9f));
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p0.x, p0.y + 2), ImVec2(p0.x + std::max(2.0f, w * (0.05f + 0.95f * t)), p0.y + em * 0.9f),
                                                phase_color(Phase::Optimizer), 2.0f);
    }
    ImGui::EndTable();
  }
}

}  // namespace

void draw_replay_phase_view(AppState& s, ReplayState& r) {
  const Stop* here = current_stop(s, r);
  const StepPlan* plan = s.model.step_stops().plan(r.step);
  if (!plan || !here) {
    if (plan && plan->stops.empty()) say(r, "Nothing was recorded in step " + std::to_string(r.step) + ".");
    else ImGui::TextDisabled("loading step %d ...", r.step);
    return;
  }
  // Title: step, phase, what the stop is.
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(phase_color(here->phase)), "step %d  %s", r.step,
                     phase_label(here->phase));
  ImGui::SameLine();
  ImGui::Text("%s", here->name.empty() ? event_kind_label(here->kind) : here->name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s  (%d / %zu)", here->cls.c_str(), r.stop + 1, plan->stops.size());
  if (plan->other_events) {
    ImGui::SameLine();
    ImGui::TextDisabled("| %" PRIu64 " calls outside training's phases (setup, evaluation) not played", plan->other_events);
  }
  if (plan->unreadable) say(r, "Part of this step is unreadable (a damaged chunk): its calls are not played.", colors::kWarning);
  ImGui::Separator();
  switch (here->phase) {
    case Phase::Data: draw_data_view(s, r, *here); break;
    case Phase::Loss: draw_loss_view(s, r, *here); break;
    case Phase::Optimizer: draw_optimizer_view(s, r); break;
    case Phase::Forward:
    case Phase::Backward: {
      if (here->kind != EventKind::ModuleCall) {
        say(r, std::string("A ") + event_kind_label(here->kind) + " in " + phase_label(here->phase) +
            ": no layer view (step by layer to visit only module calls).");
        if (const CallRef e = s.model.call(here->event))
          ImGui::TextDisabled("called at %s", call_site(s.model, e.call_file(), e.call_line()).c_str());
        break;
      }
      LayerTarget t;
      t.event = here->event;
      t.step = r.step;
      t.sample = replay_sample(s);
      t.gradient = here->phase == Phase::Backward;
      PanelContext c = replay_panel_context(s);
      draw_layer_view(c, r.layer, t);
      r.layer_shown = r.layer.shown;
      break;
    }
    default: break;
  }
}

}  // namespace tvis::viewer
