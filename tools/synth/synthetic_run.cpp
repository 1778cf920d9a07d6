#include "synthetic_run.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "tvis/format/chunk_pack.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_writer.h"
#include "tvis/format/tensor_data_chunk.h"
#include "tvis/schema/recording_generated.h"

namespace tvis::synth {

namespace fmt = tvis::format;
namespace sc = tvis::schema;

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {  // splitmix64
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  // Irwin-Hall of four 16-bit uniforms from one draw: close to N(0, 1), fast.
  float gauss() {
    const uint64_t r = next();
    const float sum = float(r & 0xFFFF) + float((r >> 16) & 0xFFFF) + float((r >> 32) & 0xFFFF) + float(r >> 48);
    return (sum * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
  }
};

constexpr int64_t kStartMs = 1767225600000;  // 2026-01-01T00:00:00Z
constexpr uint32_t kTrainLine = 30, kForwardLine = 12, kUpdateLine = 40;
constexpr uint64_t kDataChunkBytes = 4u << 20;  // a TensorData chunk is cut at this many value bytes

const char* kSourceText =
    "# train.py: a synthetic training script (written by tvis-synth)\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)\n"
    "        self.bn1 = nn.BatchNorm2d(16)\n"
    "\n"
    "    def forward(self, x):\n"
    "        x = F.relu(self.bn1(self.conv1(x)))\n"
    "        x = self.layer1(x)\n"
    "        x = self.blocks(x)\n"
    "        return self.fc(self.avgpool(x).flatten(1))\n"
    "\n"
    "\n"
    "def sgd_update(model, lr):\n"
    "    for p in model.parameters():\n"
    "        p.data -= lr * p.grad\n"
    "\n"
    "\n"
    "def train(loader, model, opt):\n"
    "    for x, y in loader:\n"
    "        opt.zero_grad()\n"
    "        loss = F.cross_entropy(model(x), y)\n"
    "        loss.backward()\n"
    "        opt.step()\n"
    "\n"
    "train(loader, Net(), torch.optim.SGD(model.parameters(), lr=0.1))\n";

struct Module {
  std::string name, cls;
};

std::vector<Module> make_modules(uint64_t per_step) {
  std::vector<Module> m = {{"conv1", "Conv2d"},          {"bn1", "BatchNorm2d"},
                           {"relu", "ReLU"},             {"layer1.0.conv1", "Conv2d"},
                           {"layer1.0.bn1", "BatchNorm2d"}, {"layer1.0.relu", "ReLU"},
                           {"layer1.0.conv2", "Conv2d"}, {"layer1.0.bn2", "BatchNorm2d"},
                           {"layer1", "Sequential"},     {"blocks.0.attn", "MultiheadAttention"},
                           {"avgpool", "AdaptiveAvgPool2d"}, {"fc", "Linear"}};
  for (uint64_t k = 1; m.size() < per_step; ++k) {
    m.push_back({"blocks." + std::to_string(k) + ".mlp.fc1", "Linear"});
    m.push_back({"blocks." + std::to_string(k) + ".mlp.act", "GELU"});
    m.push_back({"blocks." + std::to_string(k) + ".mlp.fc2", "Linear"});
  }
  m.resize(std::max<uint64_t>(1, per_step));
  return m;
}

std::unique_ptr<sc::StatsT> compute_stats(const float* v, uint64_t n) {
  auto s = std::make_unique<sc::StatsT>();
  s->count = n;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0, sum_abs = 0, sum_sq = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double x = v[i];
    if (std::isnan(x)) {
      ++s->nan_count;
      continue;
    }
    if (std::isinf(x)) {
      ++s->inf_count;
      continue;
    }
    ++s->finite_count;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
    sum_abs += std::fabs(x);
    sum_sq += x * x;
  }
  const double f = double(s->finite_count);
  if (f > 0) {
    s->min = lo;
    s->max = hi;
    s->mean = sum / f;
    s->std = std::sqrt(std::max(0.0, sum_sq / f - s->mean * s->mean));
    s->mean_abs = sum_abs / f;
    s->l2 = std::sqrt(sum_sq);
    s->hist_lo = lo;
    s->hist_hi = hi;
  }
  s->histogram.assign(32, 0);
  const double width = (hi - lo) / 32;
  for (uint64_t i = 0; i < n && f > 0; ++i) {
    if (!std::isfinite(v[i])) continue;
    int bin = width > 0 ? int((v[i] - lo) / width) : 0;
    s->histogram[size_t(std::min(31, std::max(0, bin)))] += 1;
  }
  return s;
}

std::unique_ptr<sc::KeyValueT> kv(std::string k, std::string v) {
  auto p = std::make_unique<sc::KeyValueT>();
  p->key = std::move(k);
  p->value = std::move(v);
  return p;
}

fmt::Bytes pack(sc::BodyUnion body) { return fmt::pack_chunk(std::move(body)); }

template <typename T>
sc::BodyUnion as_body(T value) {
  sc::BodyUnion u;
  u.Set(std::move(value));
  return u;
}

class Writer {
 public:
  Writer(fmt::RunWriter& w, const SynthOptions& o) : w_(w), o_(o), rng_{o.seed} {}

  void run() {
    const uint64_t calls = o_.calls ? o_.calls : uint64_t(12) * uint64_t(std::max(1, o_.steps));
    const uint64_t per_step = std::max<uint64_t>(1, calls / uint64_t(std::max(1, o_.steps)));
    modules_ = make_modules(per_step);
    floats_per_call_ = o_.target_bytes > 0 ? std::max<uint64_t>(16, uint64_t(o_.target_bytes / 4 / double(calls)))
                                           : (o_.tiny ? 4 : 1280);
    write_meta(false);
    write_sources();
    train_event_ = event(sc::EventKind::FunctionCall, -1, sc::Phase::None, "train", "", -1, kTrainLine, 24);
    for (int step = 0; step < o_.steps; ++step) write_step(step);
    flush_all();
    if (o_.finalize) write_meta(true);
  }

  SynthReport report;

 private:
  // ----------------------------------------------------------- chunks ---
  uint32_t append(fmt::ChunkKind kind, fmt::Bytes raw, int32_t s0, int32_t s1, uint64_t e0 = UINT64_MAX,
                  uint64_t e1 = UINT64_MAX, fmt::ChunkFilter filter = fmt::ChunkFilter::None) {
    fmt::ChunkInfo info;
    info.kind = uint16_t(kind);
    info.filter = filter;
    info.step_first = s0;
    info.step_last = s1;
    info.event_first = e0;
    info.event_last = e1;
    report.chunks += 1;
    report.raw_bytes += raw.size();
    return w_.append(info, std::move(raw));
  }

  void write_meta(bool final) {
    auto m = std::make_unique<sc::RunMetaT>();
    m->kind = sc::RunKind::Training;
    m->script = "examples/synthetic/train.py";
    m->argv = {m->script, "--epochs", "1", "--lr", "0.1"};
    m->cwd = "/work/project";
    m->project_dir = "/work/project";
    m->python_version = "3.11.2";
    m->torch_version = "1.13.1";
    m->device = "cpu";
    m->hostname = "synth";
    m->tvis_version = "0.1.0";
    m->started_unix_ms = kStartMs;
    m->steps_requested = o_.steps;
    m->optimizer_class = "SGD";
    m->options.push_back(kv("max_elems", "65536"));
    m->options.push_back(kv("samples", "4"));
    for (const auto& [key, value] : o_.meta_options) m->options.push_back(kv(key, value));
    if (final) {
      m->finished_unix_ms = kStartMs + 1000 * int64_t(o_.steps) + 250;
      m->steps_recorded = o_.steps;
      m->complete = true;
      m->exit_code = 0;
      auto n = std::make_unique<sc::NoticeT>();
      n->code = "synthetic";
      n->message = "synthetic run written by tvis-synth: no real training happened";
      m->notices.push_back(std::move(n));
      for (int s = 0; s < o_.steps; ++s)
        for (int p = 1; p <= 5; ++p) {
          auto t = std::make_unique<sc::PhaseTimingT>();
          t->step = s;
          t->phase = sc::Phase(p);
          t->ns = 1000000 * p + s;
          m->phase_timings.push_back(std::move(t));
        }
    }
    flush_all();
    append(fmt::ChunkKind::RunMeta, pack(as_body(std::move(*m))), final ? o_.steps - 1 : -1,
           final ? o_.steps - 1 : -1);
  }

  void write_sources() {
    sc::SourceFilesT files;
    auto f = std::make_unique<sc::SourceFileT>();
    f->id = 0;
    f->path = "/work/project/examples/synthetic/train.py";
    f->display_path = "examples/synthetic/train.py";
    f->text = kSourceText;
    files.files.push_back(std::move(f));
    append(fmt::ChunkKind::SourceFiles, pack(as_body(std::move(files))), -1, -1);
  }

  // ----------------------------------------------------------- events ---
  uint64_t event(sc::EventKind kind, int32_t step, sc::Phase phase, std::string name, std::string cls,
                 int64_t parent, uint32_t call_line, uint32_t def_line) {
    auto e = std::make_unique<sc::EventT>();
    e->id = next_event_++;
    e->parent = parent;
    e->kind = kind;
    e->step = step;
    e->phase = phase;
    e->name = std::move(name);
    e->class_name = std::move(cls);
    e->call_line = call_line;
    e->def_line = def_line;
    e->t_begin_ns = int64_t(e->id) * 1000;
    e->t_end_ns = e->t_begin_ns + 500;
    const uint64_t id = e->id;
    if (events_.empty()) events_step_first_ = step;
    events_step_last_ = step;
    events_.push_back(std::move(e));
    if (events_.size() >= 4096) flush_events();
    return id;
  }

  void flush_events() {
    if (events_.empty()) return;
    const uint64_t e0 = events_.front()->id, e1 = events_.back()->id;
    report.events += events_.size();
    sc::EventBatchT batch;
    batch.events = std::move(events_);
    events_.clear();
    append(fmt::ChunkKind::Events, pack(as_body(std::move(batch))), events_step_first_, events_step_last_, e0, e1);
  }

  // ---------------------------------------------------------- tensors ---
  // Records a float32 tensor with values; returns its id.
  uint64_t tensor(int64_t ev, sc::TensorRole role, int32_t step, std::string name, std::vector<int64_t> shape,
                  int kind, int32_t sample = -1) {
    uint64_t n = 1;
    for (int64_t d : shape) n *= uint64_t(d);
    scratch_.resize(n);
    fill_activations(scratch_.data(), n, rng_.next(), kind);
    auto t = std::make_unique<sc::TensorRecordT>();
    t->id = next_tensor_++;
    t->event = ev;
    t->role = role;
    t->name = std::move(name);
    t->step = step;
    t->sample = sample;
    t->shape = std::move(shape);
    t->dtype = sc::DType::Float32;
    t->device = "cpu";
    t->requires_grad = role == sc::TensorRole::Weight;
    t->stats = compute_stats(scratch_.data(), n);
    t->kept = sc::ValuesKept::Full;
    // As the recorder cuts its buffers: a tensor that would take the chunk past
    // its size starts the next one, so small tensors (the batch, transforms)
    // never share a chunk with a large activation written after them.
    if (!data_.empty() && data_.size() + n * 4 > kDataChunkBytes) flush_tensors();
    t->data_offset = data_.size();
    t->data_size = n * 4;
    const auto* bytes = reinterpret_cast<const uint8_t*>(scratch_.data());
    data_.insert(data_.end(), bytes, bytes + n * 4);
    const uint64_t id = t->id;
    if (tensors_.empty()) tensors_step_first_ = step;
    tensors_step_last_ = step;
    tensors_.push_back(std::move(t));
    if (data_.size() >= kDataChunkBytes || tensors_.size() >= 4096) flush_tensors();
    return id;
  }

  // TensorData first (its ordinal goes into the records), then the records.
  void flush_tensors() {
    if (tensors_.empty()) return;
    uint32_t ordinal = append(fmt::ChunkKind::TensorData, fmt::make_tensor_data_chunk(data_.data(), data_.size()),
                              tensors_step_first_, tensors_step_last_, UINT64_MAX, UINT64_MAX,
                              fmt::ChunkFilter::Shuffle4);
    data_.clear();
    for (auto& t : tensors_) t->data_chunk = ordinal;
    report.tensors += tensors_.size();
    sc::TensorBatchT batch;
    batch.tensors = std::move(tensors_);
    tensors_.clear();
    append(fmt::ChunkKind::Tensors, pack(as_body(std::move(batch))), tensors_step_first_, tensors_step_last_);
  }

  void flush_all() {
    flush_events();
    flush_tensors();
  }

  // Fixed-size tensors (batch, weights, maps) shrink to 2x2 in tiny runs.
  std::vector<int64_t> fixed(std::vector<int64_t> shape) const {
    return o_.tiny ? std::vector<int64_t>{2, 2} : shape;
  }

  std::vector<int64_t> call_shape() const {
    if (floats_per_call_ >= 256) return {int64_t((floats_per_call_ + 128) / 256), 256};
    return {int64_t(floats_per_call_)};
  }

  // ------------------------------------------------------------- steps ---
  void write_step(int step) {
    const int64_t top = int64_t(train_event_);
    // Data: one fetch, four followed samples, each through a transform chain.
    event(sc::EventKind::PhaseBegin, step, sc::Phase::Data, "data", "", top, kTrainLine, 0);
    const uint64_t fetch = event(sc::EventKind::DataFetch, step, sc::Phase::Data, "DataLoader.__next__", "", top,
                                 25, 0);
    const uint64_t batch = tensor(int64_t(fetch), sc::TensorRole::Batch, step, "x", fixed({4, 3, 8, 8}), 1);
    sc::SampleBatchT samples;
    samples.step = step;
    samples.batch_event = fetch;
    samples.batch = {batch};
    const char* chain[] = {"Resize", "RandomRotation", "ToTensor", "Normalize"};
    for (int id = 0; id < 4; ++id) {
      auto smp = std::make_unique<sc::SampleT>();
      smp->id = id;
      smp->step = step;
      smp->dataset_index = 97 * id + 13 * step;
      smp->batch_position = id;
      smp->label = "class_" + std::to_string((id + step) % 10);
      smp->label_index = (id + step) % 10;
      smp->input = int64_t(batch);
      const uint64_t get = event(sc::EventKind::DatasetGetItem, step, sc::Phase::Data, "Dataset.__getitem__", "",
                                 int64_t(fetch), 25, 0);
      int64_t prev = -1;
      for (const char* name : chain) {
        auto ts = std::make_unique<sc::TransformStepT>();
        ts->class_name = name;
        ts->name = std::string(name) + "()";
        ts->event = event(sc::EventKind::Transform, step, sc::Phase::Data, ts->name, name, int64_t(get), 25, 0);
        ts->input = prev;
        ts->output = int64_t(tensor(int64_t(ts->event), sc::TensorRole::TransformOutput, step, name, fixed({3, 8, 8}), 1, id));
        ts->input_kind = prev < 0 ? sc::ValueKind::PILImage : sc::ValueKind::Tensor;
        ts->output_kind = std::string(name) == "Resize" ? sc::ValueKind::PILImage : sc::ValueKind::Tensor;
        prev = ts->output;
        smp->transforms.push_back(std::move(ts));
      }
      samples.samples.push_back(std::move(smp));
    }
    event(sc::EventKind::PhaseEnd, step, sc::Phase::Data, "data", "", top, kTrainLine, 0);

    // Forward: Net.forward, then every module once.
    event(sc::EventKind::PhaseBegin, step, sc::Phase::Forward, "forward", "", top, kTrainLine, 0);
    const uint64_t fwd = event(sc::EventKind::FunctionCall, step, sc::Phase::Forward, "Net.forward", "", top, 27,
                               kForwardLine);
    uint64_t first_conv_out = 0;
    for (size_t i = 0; i < modules_.size(); ++i) {
      const Module& m = modules_[i];
      const uint64_t ev = event(sc::EventKind::ModuleCall, step, sc::Phase::Forward, m.name, m.cls, int64_t(fwd),
                                kForwardLine + 1, 9);
      const uint64_t out = tensor(int64_t(ev), sc::TensorRole::Output, step, "output", call_shape(),
                                  m.cls == "Conv2d" ? 1 : 0);
      if (i == 3) first_conv_out = out;
    }
    event(sc::EventKind::PhaseEnd, step, sc::Phase::Forward, "forward", "", top, kTrainLine, 0);

    // Loss and backward.
    event(sc::EventKind::PhaseBegin, step, sc::Phase::Loss, "loss", "", top, kTrainLine, 0);
    const uint64_t loss_ev = event(sc::EventKind::LossCall, step, sc::Phase::Loss,
                                   "torch.nn.functional.cross_entropy", "", top, 27, 0);
    const uint64_t logits = tensor(int64_t(loss_ev), sc::TensorRole::Logits, step, "input", fixed({4, 10}), 0);
    event(sc::EventKind::PhaseEnd, step, sc::Phase::Loss, "loss", "", top, kTrainLine, 0);
    event(sc::EventKind::PhaseBegin, step, sc::Phase::Backward, "backward", "", top, kTrainLine, 0);
    event(sc::EventKind::BackwardCall, step, sc::Phase::Backward, "Tensor.backward", "", top, 28, 0);
    event(sc::EventKind::PhaseEnd, step, sc::Phase::Backward, "backward", "", top, kTrainLine, 0);

    // Optimizer.
    event(sc::EventKind::PhaseBegin, step, sc::Phase::Optimizer, "optimizer", "", top, kTrainLine, 0);
    const uint64_t opt_ev = event(sc::EventKind::OptimizerStep, step, sc::Phase::Optimizer, "SGD.step", "SGD", top,
                                  29, 0);
    event(sc::EventKind::FunctionCall, step, sc::Phase::Optimizer, "sgd_update", "", int64_t(opt_ev), 29,
          kUpdateLine);
    sc::OptimizerStepRecordT opt;
    opt.step = step;
    opt.event = opt_ev;
    opt.optimizer_class = "SGD";
    auto group = std::make_unique<sc::ParamGroupT>();
    group->hyper.push_back(kv("lr", "0.1"));
    for (const char* p : {"conv1.weight", "fc.weight"}) {
      group->params.push_back(p);
      auto pr = std::make_unique<sc::ParamRecordT>();
      pr->name = p;
      pr->weight = tensor(int64_t(opt_ev), sc::TensorRole::Weight, step, p, fixed({16, 27}), 0);
      pr->grad = int64_t(tensor(int64_t(opt_ev), sc::TensorRole::Grad, step, p, fixed({16, 27}), 0));
      pr->update = int64_t(tensor(int64_t(opt_ev), sc::TensorRole::Update, step, p, fixed({16, 27}), 0));
      opt.params.push_back(std::move(pr));
    }
    opt.groups.push_back(std::move(group));
    event(sc::EventKind::PhaseEnd, step, sc::Phase::Optimizer, "optimizer", "", top, kTrainLine, 0);

    // Loss record: a decaying curve with deterministic noise.
    sc::LossRecordT loss;
    loss.step = step;
    loss.event = loss_ev;
    loss.call = "torch.nn.functional.cross_entropy";
    loss.reduction = "mean";
    loss.value = 2.302585092994046 * std::exp(-0.25 * step) + 0.01 * rng_.uniform();
    loss.value_repr = "";  // filled by the reader's python_float_repr when needed
    loss.logits = int64_t(logits);
    for (int id = 0; id < 4; ++id) {
      auto sl = std::make_unique<sc::SampleLossT>();
      sl->sample = id;
      sl->batch_row = id;
      sl->logits = int64_t(logits);
      sl->target = (id + step) % 10;
      sl->p_target = 0.1 + 0.05 * id;
      sl->neg_log_p = -std::log(sl->p_target);
      sl->loss = sl->neg_log_p;
      sl->predicted = id % 10;
      loss.samples.push_back(std::move(sl));
    }
    report.losses.push_back(loss.value);

    // Insights for the followed samples.
    sc::InsightBatchT ins;
    for (int id = 0; id < 4; ++id) {
      auto g = std::make_unique<sc::GradCamRecordT>();
      g->step = step;
      g->module_ = "layer1.0.conv1";
      g->sample = id;
      g->target = sc::CamTarget::Predicted;
      g->class_index = id;
      g->map = tensor(-1, sc::TensorRole::GradCam, step, "gradcam", fixed({8, 8}), 1, id);
      ins.gradcam.push_back(std::move(g));
    }
    auto a = std::make_unique<sc::AttentionRecordT>();
    a->step = step;
    a->module_ = "blocks.0.attn";
    a->sample = 0;
    a->shape = {8, 4, 24, 24};
    a->weights = tensor(-1, sc::TensorRole::Attention, step, "attn", fixed({4, 24, 24}), 0, 0);
    ins.attention.push_back(std::move(a));
    auto emb = std::make_unique<sc::EmbeddingRecordT>();
    emb->step = step;
    emb->module_ = "layer1";
    emb->samples = {0, 1, 2, 3};
    emb->labels = {"a", "b", "c", "d"};
    emb->vectors = tensor(-1, sc::TensorRole::Embedding, step, "embedding", fixed({4, 16}), 0);
    if (o_.batch_embeddings) {
      emb->positions = {1, 3, 5, 7};
      for (int r = 0; r < 8; ++r) {
        emb->rows.push_back(r);
        emb->row_labels.push_back(std::to_string((r + step) % 3));
      }
      emb->batch_vectors = tensor(-1, sc::TensorRole::Embedding, step, "embedding rows", {8, 16}, 0);
      emb->batch_size = 8;
    }
    ins.embeddings.push_back(std::move(emb));
    if (step == 0) {
      auto la = std::make_unique<sc::LibraryAttentionT>();
      la->module_ = "blocks.0.attn";
      la->kind = "nn.MultiheadAttention";
      ins.library_attention.push_back(std::move(la));
    }
    (void)first_conv_out;

    flush_all();
    append(fmt::ChunkKind::Samples, pack(as_body(std::move(samples))), step, step);
    append(fmt::ChunkKind::Loss, pack(as_body(std::move(loss))), step, step);
    append(fmt::ChunkKind::OptimizerStep, pack(as_body(std::move(opt))), step, step);
    append(fmt::ChunkKind::Insights, pack(as_body(std::move(ins))), step, step);
  }

  fmt::RunWriter& w_;
  SynthOptions o_;
  Rng rng_;
  std::vector<Module> modules_;
  uint64_t floats_per_call_ = 0;
  uint64_t next_event_ = 0, next_tensor_ = 0, train_event_ = 0;
  std::vector<std::unique_ptr<sc::EventT>> events_;
  int32_t events_step_first_ = -1, events_step_last_ = -1;
  std::vector<std::unique_ptr<sc::TensorRecordT>> tensors_;
  int32_t tensors_step_first_ = -1, tensors_step_last_ = -1;
  std::vector<uint8_t> data_;
  std::vector<float> scratch_;
};

}  // namespace

void fill_activations(float* out, uint64_t count, uint64_t seed, int kind) {
  Rng rng{seed};
  const uint64_t row = 256;
  if (kind == 1) {  // smooth field: two low-frequency waves plus a little noise
    const float fx = 0.02f + 0.05f * float(rng.uniform()), fy = 0.03f + 0.04f * float(rng.uniform());
    const float amp = 0.5f + float(rng.uniform());
    for (uint64_t i = 0; i < count; ++i) {
      const float x = float(i % row), y = float(i / row);
      out[i] = amp * (std::sin(fx * x) * std::cos(fy * y)) + 0.05f * rng.gauss();
    }
    return;
  }
  float scale = 1.0f, shift = 0.0f;
  for (uint64_t i = 0; i < count; ++i) {
    if (i % row == 0) {  // per-channel scale and bias, as after a conv/linear layer
      scale = 0.2f + 1.5f * float(rng.uniform());
      shift = 0.6f * float(rng.uniform()) - 0.3f;
    }
    const float v = scale * rng.gauss() + shift;
    out[i] = v > 0 ? v : 0.0f;  // ReLU: about half exact zeros
  }
}

tvis::format::Result<SynthReport> write_synthetic_run(const std::string& path, const SynthOptions& options) {
  fmt::WriterOptions wo;
  wo.zstd_level = options.zstd_level;
  wo.version_minor = options.version_minor;
  auto created = fmt::RunWriter::create(path, wo);
  if (!created.ok()) return created.status();
  std::unique_ptr<fmt::RunWriter> writer = std::move(created.value());
  Writer synth(*writer, options);
  synth.run();
  if (options.finalize) {
    fmt::Status s = writer->finalize();
    if (!s) return s;
  } else {
    fmt::Status s = writer->error();
    if (!s) return s;
  }
  SynthReport report = synth.report;
  report.file_bytes = writer->stats().file_bytes;
  return report;
}

}  // namespace tvis::synth
