#include "tvis/viewer_model/loss_analysis.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tvis/viewer_model/run_model.h"

namespace tvis::viewer {

namespace {

bool ends_with(const std::string& s, const char* tail) {
  const size_t n = std::char_traits<char>::length(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

bool integer_dtype(schema::DType d) {
  return d == schema::DType::Int64 || d == schema::DType::Int32 || d == schema::DType::Int16 ||
         d == schema::DType::Int8 || d == schema::DType::UInt8;
}

std::string count_label(uint64_t n) {
  char buf[32];
  if (n >= 1000000) std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(n) / 1e6);
  else std::snprintf(buf, sizeof buf, "%" PRIu64, n);
  return buf;
}

// The tensor record `id` of `step`, with Loading / missing told apart.
enum class Found { Yes, Loading, No };
Found find_tensor(RunModel& model, int64_t id, int step, TensorRef* out) {
  if (id < 0) return Found::No;
  bool done = true;
  *out = model.tensors().by_id(model, static_cast<uint64_t>(id), step, &done);
  if (*out) return Found::Yes;
  return done ? Found::No : Found::Loading;
}

// The per-row figures of one logits row (see loss_analysis.h).
void row_figures(const double* x, int64_t v, int64_t t, bool log_probs, double smoothing, SampleLossRow* r) {
  double m = x[0];
  int64_t pred = 0;
  for (int64_t j = 1; j < v; ++j)
    if (x[j] > m) {
      m = x[j];
      pred = j;
    }
  r->predicted = pred;
  if (log_probs) {
    r->neg_log_p = -x[t];
    r->p_target = std::exp(x[t]);
    double all = 0;
    for (int64_t j = 0; j < v; ++j) all += -x[j];
    r->loss = smoothing > 0 ? (1 - smoothing) * r->neg_log_p + smoothing / static_cast<double>(v) * all : r->neg_log_p;
    return;
  }
  double s = 0;
  for (int64_t j = 0; j < v; ++j) s += std::exp(x[j] - m);
  const double lse = std::log(s);
  r->neg_log_p = -((x[t] - m) - lse);
  r->p_target = std::exp(-r->neg_log_p);
  if (smoothing > 0) {
    double all = 0;
    for (int64_t j = 0; j < v; ++j) all += -((x[j] - m) - lse);
    r->loss = (1 - smoothing) * r->neg_log_p + smoothing / static_cast<double>(v) * all;
  } else {
    r->loss = r->neg_log_p;
  }
}

double parse_double(const std::string& s, double fallback) {
  if (s.empty() || s == "None") return fallback;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? fallback : v;
}

}  // namespace

std::string classification_function(const std::string& call) {
  if (ends_with(call, "cross_entropy") || ends_with(call, "CrossEntropyLoss")) return "cross_entropy";
  if (ends_with(call, "nll_loss") || ends_with(call, "NLLLoss")) return "nll_loss";
  return "";
}

std::string loss_arg(const schema::LossRecord& rec, const char* key) {
  if (!rec.args()) return "";
  for (const auto* kv : *rec.args())
    if (kv && kv->key() && kv->key()->str() == key) return kv->value() ? kv->value()->str() : "";
  return "";
}

void LossAnalysis::reset() {
  batches_.clear();
  confusion_ = Confusion{};
  confusion_final_ = false;
}

const LossBatch& LossAnalysis::batch(const schema::LossRecord& rec) {
  LossBatch& b = batches_[{rec.step(), rec.event()}];
  if (b.state == AnalysisState::Loading) analyse(rec, &b);
  return b;
}

const LossBatch& LossAnalysis::batch(const LossEntry& e) {
  auto found = batches_.find({e.step, e.event});
  if (found != batches_.end() && found->second.state != AnalysisState::Loading) return found->second;
  if (const schema::LossRecord* rec = model_.losses().record(e)) return batch(*rec);
  static const LossBatch kNotOfThisRun = [] {
    LossBatch b;
    b.state = AnalysisState::Unavailable;
    b.why = "This loss record is not in the run shown.";
    return b;
  }();
  return kNotOfThisRun;
}

void LossAnalysis::analyse(const schema::LossRecord& rec, LossBatch* out) {
  LossBatch& b = *out;
  b.step = rec.step();
  b.event = rec.event();
  const std::string call = rec.call() ? rec.call()->str() : "";
  b.function = classification_function(call);
  auto unavailable = [&](std::string why) {
    b.state = AnalysisState::Unavailable;
    b.why = std::move(why);
  };
  if (b.function.empty()) {
    return unavailable(call.empty() ? "A custom loss: no loss function or nn loss module tvis recognises produced "
                                      "it, so there is no per-sample analysis; its value is shown above."
                                    : call + " is not a classification loss tvis analyses (it analyses "
                                             "cross_entropy and nll_loss over class indices); its value and call "
                                             "are shown above.");
  }
  TensorRef logits, targets;
  const Found fl = find_tensor(model_, rec.logits(), rec.step(), &logits);
  const Found ft = find_tensor(model_, rec.targets(), rec.step(), &targets);
  if (fl == Found::Loading || ft == Found::Loading) return;
  if (fl == Found::No || ft == Found::No)
    return unavailable("The loss's logits or targets were not recorded: no per-sample analysis.");
  const auto* ls = logits.record()->shape();
  const auto* ts = targets.record()->shape();
  if (!ls || ls->size() != 2 || !ts || ts->size() != 1 || !integer_dtype(targets.record()->dtype()))
    return unavailable("Per-sample analysis needs logits [N, classes] and class-index targets [N] (got logits " +
                       shape_label(ls) + ", targets " + shape_label(ts) + ").");
  b.rows_total = ls->Get(0);
  b.classes = ls->Get(1);
  if (b.classes <= 0 || ts->Get(0) != b.rows_total) return unavailable("Logits and targets disagree in their rows.");
  std::string error;
  TensorValues tv;
  if (model_.tensors().read_values(model_, *targets.record(), &tv, &error) == ChunkRead::Loading) return;
  if (!error.empty()) return unavailable("The targets' values cannot be read: " + error);
  if (b.logits.values.empty() && b.logits.shape.empty()) {
    if (model_.tensors().read_values(model_, *logits.record(), &b.logits, &error) == ChunkRead::Loading) return;
    if (!error.empty()) {
      b.logits = {};
      const bool stats_only = logits.record()->kept() == schema::ValuesKept::None;
      return unavailable(stats_only ? "The logits (" + count_label(element_count(ls)) +
                                          " values) exceed --max-elems: only their statistics were kept, so "
                                          "per-sample losses are not available."
                                    : "The logits' values cannot be read: " + error);
    }
  }
  b.ignore_index = static_cast<int64_t>(parse_double(loss_arg(rec, "ignore_index"), -100));
  b.label_smoothing = parse_double(loss_arg(rec, "label_smoothing"), 0);
  const std::string weight = loss_arg(rec, "weight");
  b.weighted = !weight.empty() && weight != "None";
  const bool log_probs = b.function == "nll_loss";
  const int64_t v = b.classes;
  const int64_t kept_rows =
      std::min<int64_t>({b.rows_total, static_cast<int64_t>(b.logits.values.size()) / v,
                         static_cast<int64_t>(tv.values.size())});
  // The recorder's own figures for the rows it analysed (exact torch values).
  std::map<int64_t, const schema::SampleLoss*> followed;
  if (rec.samples())
    for (const auto* sl : *rec.samples())
      if (sl) followed[sl->batch_row()] = sl;
  b.rows.clear();
  b.rows.reserve(static_cast<size_t>(kept_rows));
  for (int64_t r = 0; r < kept_rows; ++r) {
    SampleLossRow row;
    row.row = r;
    row.target = static_cast<int64_t>(tv.values[static_cast<size_t>(r)]);
    if (row.target == b.ignore_index) continue;
    if (row.target < 0 || row.target >= v) continue;  // not a class: torch would have raised
    row_figures(&b.logits.values[static_cast<size_t>(r * v)], v, row.target, log_probs, b.label_smoothing, &row);
    auto f = followed.find(r);
    if (b.weighted) row.loss = f != followed.end() ? f->second->loss() : NAN;
    if (f != followed.end()) {
      row.followed = true;
      row.sample = f->second->sample();
    }
    b.rows.push_back(row);
  }
  b.worst.resize(b.rows.size());
  for (size_t i = 0; i < b.worst.size(); ++i) b.worst[i] = i;
  auto key = [&](size_t i) { return std::isnan(b.rows[i].loss) ? b.rows[i].neg_log_p : b.rows[i].loss; };
  std::stable_sort(b.worst.begin(), b.worst.end(), [&](size_t a, size_t c) { return key(a) > key(c); });
  if (kept_rows < b.rows_total)
    b.why = "Only the leading " + std::to_string(kept_rows) + " of " + std::to_string(b.rows_total) +
            " rows of the logits were kept (--max-elems): the others are not listed.";

  // A language model's layout: per-token losses as the recorder computed them.
  if (const schema::TokenLayout* tl = rec.tokens()) {
    b.has_tokens = true;
    TokenLosses& tk = b.tokens;
    tk.batch = tl->batch();
    tk.tokens = tl->tokens();
    tk.vocab = tl->vocab();
    tk.ignore_index = tl->ignore_index();
    const int64_t n = tk.batch > 0 && tk.tokens > 0 && tk.batch * tk.tokens == b.rows_total ? b.rows_total : 0;
    tk.ignored.assign(static_cast<size_t>(n), false);
    tk.losses.assign(static_cast<size_t>(n), NAN);
    if (tl->ignored())
      for (uint64_t p : *tl->ignored())
        if (p < static_cast<uint64_t>(n)) tk.ignored[p] = true;
    TensorRef per;
    const Found fp = find_tensor(model_, tl->token_losses(), rec.step(), &per);
    if (fp == Found::Loading) return;
    if (fp == Found::Yes) {
      TensorValues pv;
      if (model_.tensors().read_values(model_, *per.record(), &pv, &error) == ChunkRead::Loading) return;
      if (error.empty() && static_cast<int64_t>(pv.values.size()) >= n) {
        tk.recorded = true;
        for (int64_t i = 0; i < n; ++i)
          tk.losses[static_cast<size_t>(i)] = tk.ignored[static_cast<size_t>(i)] ? NAN : pv.values[static_cast<size_t>(i)];
      }
    }
    if (!tk.recorded)  // not recorded: the analysed rows' losses
      for (const SampleLossRow& row : b.rows)
        if (row.row < n) tk.losses[static_cast<size_t>(row.row)] = row.loss;
  }
  b.state = AnalysisState::Ready;
}

const Confusion& LossAnalysis::confusion() {
  if (confusion_final_) return confusion_;
  bool loading = !model_.losses().ready();
  Confusion c;
  for (const schema::LossRecord* rec : model_.losses().all()) {
    const LossBatch& b = batch(*rec);
    if (b.state == AnalysisState::Loading) {
      loading = true;
      continue;
    }
    if (b.state == AnalysisState::Unavailable || b.has_tokens) {
      ++c.batches_skipped;
      continue;
    }
    if (c.classes == 0) {
      if (b.classes > kMaxClasses) {
        c.why = std::to_string(b.classes) + " classes: a confusion matrix of more than " +
                std::to_string(kMaxClasses) + " classes is not drawn.";
        c.state = AnalysisState::Unavailable;
        confusion_ = c;
        confusion_final_ = true;
        return confusion_;
      }
      c.classes = static_cast<int>(b.classes);
      c.counts.assign(static_cast<size_t>(c.classes) * static_cast<size_t>(c.classes), 0);
    }
    if (b.classes != c.classes) {
      ++c.batches_skipped;
      continue;
    }
    for (const SampleLossRow& row : b.rows)
      ++c.counts[static_cast<size_t>(row.target * c.classes + row.predicted)];
    c.samples += static_cast<int64_t>(b.rows.size());
    ++c.batches;
  }
  if (loading) {
    c.state = AnalysisState::Loading;
  } else if (c.classes == 0) {
    c.state = AnalysisState::Unavailable;
    c.why = c.batches_skipped ? "No recorded loss is a classification over class indices (a language model's "
                                "tokens are shown per token instead): no confusion matrix."
                              : "No loss was recorded.";
  } else {
    c.state = AnalysisState::Ready;
  }
  confusion_ = std::move(c);
  confusion_final_ = !loading;
  return confusion_;
}

std::vector<double> row_normalised(const Confusion& c) {
  const size_t n = static_cast<size_t>(std::max(c.classes, 0));
  std::vector<double> out(n * n, 0.0);
  if (c.counts.size() < n * n) return out;
  for (size_t t = 0; t < n; ++t) {
    int64_t sum = 0;
    for (size_t p = 0; p < n; ++p) sum += c.counts[t * n + p];
    if (sum == 0) continue;
    for (size_t p = 0; p < n; ++p)
      out[t * n + p] = static_cast<double>(c.counts[t * n + p]) / static_cast<double>(sum);
  }
  return out;
}

bool is_loss_call_event(const LossEntry& loss, const schema::Event& e) {
  const std::string& call = loss.call;
  if (call.empty() || loss.event == kNoLossEvent || e.id() != loss.event) return false;
  if (e.kind() == schema::EventKind::LossCall) return e.name() && e.name()->str() == call;
  if (e.kind() == schema::EventKind::ModuleCall)
    return e.class_name() && "torch.nn." + e.class_name()->str() == call;
  return false;
}

namespace {

// The call's own reduction in words (reduction_in_words without the outer note).
std::string call_reduction_in_words(const LossEntry& rec, const LossBatch* a);

}  // namespace

double loss_scale_factor(const LossEntry& e) {
  const double factor = e.value / e.call_value;
  if ((e.outer != "DivBackward0" && e.outer != "MulBackward0") || !std::isfinite(factor) || factor == 0)
    return std::nan("");
  return factor;
}

double loss_scale_factor(const schema::LossRecord& rec) { return loss_scale_factor(loss_entry(rec, 0)); }

std::string reduction_in_words(const schema::LossRecord& rec, const LossBatch* a) {
  return reduction_in_words(loss_entry(rec, 0), a);
}

std::string reduction_in_words(const LossEntry& rec, const LossBatch* a) {
  const std::string& call = rec.call;
  const std::string& outer = rec.outer;
  if (call.empty())
    return "not available: no loss function or nn loss module tvis recognises produced the tensor backward() ran "
           "on" + (outer.empty() ? std::string() : " (" + outer + ")");
  const std::string words = call_reduction_in_words(rec, a);
  if (outer.empty()) return words;
  const double factor = loss_scale_factor(rec);
  if (std::isfinite(factor)) {
    char scaled[64];
    const double divisor = 1.0 / factor;
    if (std::abs(divisor - std::round(divisor)) <= 1e-6 * std::abs(divisor))
      std::snprintf(scaled, sizeof scaled, "divided by %.0f", std::round(divisor));
    else
      std::snprintf(scaled, sizeof scaled, "times %.6g", factor);
    return words + "; backward() ran on this value " + scaled;
  }
  return words + "; but backward() ran on " + outer + " of this call's output and more (a composite loss, e.g. "
         "plus a regulariser), so the loss value is not this reduction alone";
}

namespace {

std::string call_reduction_in_words(const LossEntry& rec, const LossBatch* a) {
  const std::string reduction = rec.reduction.empty() ? "mean" : rec.reduction;
  const std::string& call = rec.call;
  const std::string fn = classification_function(call);
  if (fn.empty() || !a || a->state != AnalysisState::Ready) {
    const std::string what = fn.empty() ? (call.empty() ? "the loss" : call) : "−log p(target)";
    if (reduction == "none") return "no reduction in the call (the script reduced its per-element losses)";
    return reduction + " of " + what + (fn.empty() ? " (no per-sample analysis)" : "");
  }
  const bool tokens = a->has_tokens;
  const int64_t n = static_cast<int64_t>(a->rows.size());
  const int64_t ignored = a->rows_total - n;
  std::string term = "−log p(target)";
  if (a->label_smoothing > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(1 − %g)·(−log p(target)) + %g/%" PRId64 "·Σ −log p", a->label_smoothing,
                  a->label_smoothing, a->classes);
    term = buf;
  }
  if (a->weighted) term = "w[target]·" + (a->label_smoothing > 0 ? "(" + term + ")" : term);
  std::string over = std::to_string(n) + (tokens ? " tokens" : " samples");
  if (ignored > 0 && a->why.empty())
    over += " (" + std::to_string(ignored) + (tokens ? " padding tokens" : " rows") + " with target " +
            std::to_string(a->ignore_index) + " ignored)";
  if (reduction == "sum") return "sum over " + over + " of " + term;
  if (reduction == "none") return term + " per " + (tokens ? "token" : "sample") + " (no reduction in the call)";
  if (a->weighted) return "weighted mean over " + over + " of " + term + ", divided by Σ w[target]";
  return "mean over " + over + " of " + term;
}

}  // namespace

}  // namespace tvis::viewer
