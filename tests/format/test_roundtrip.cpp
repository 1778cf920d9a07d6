// Round trip of every table in schema/recording.fbs through the writer and
// the reader: each Chunk body is built with every field set to a non-default
// value, written, read back, and compared byte for byte with what was
// written, re-packed from the decoded object, and spot-checked field by field.
#include <catch2/catch.hpp>

#include <memory>

#include "test_util.h"
#include "tvis/format/chunk_pack.h"
#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"

namespace sc = tvis::schema;
namespace fmt = tvis::format;
using tvis::test::Bytes;

namespace {

template <typename T>
std::unique_ptr<T> make() {
  return std::make_unique<T>();
}

std::unique_ptr<sc::KeyValueT> kv(const char* k, const char* v) {
  auto p = make<sc::KeyValueT>();
  p->key = k;
  p->value = v;
  return p;
}

std::unique_ptr<sc::StatsT> stats() {
  auto s = make<sc::StatsT>();
  s->count = 100;
  s->finite_count = 97;
  s->nan_count = 2;
  s->inf_count = 1;
  s->min = -1.5;
  s->max = 2.25;
  s->mean = 0.125;
  s->std = 0.75;
  s->mean_abs = 0.5;
  s->l2 = 7.5;
  s->hist_lo = -1.5;
  s->hist_hi = 2.25;
  s->histogram = {1, 2, 3, 91};
  return s;
}

std::unique_ptr<sc::OperandT> operand(const char* name) {
  auto o = make<sc::OperandT>();
  o->name = name;
  o->shape = {8, -1, 32};
  o->dtype = "float32";
  return o;
}

sc::RunMetaT run_meta() {
  sc::RunMetaT m;
  m.kind = sc::RunKind::ProfileCapture;
  m.script = "train.py";
  m.argv = {"train.py", "--lr", "3e-4"};
  m.cwd = "/home/u/proj";
  m.project_dir = "/home/u/proj";
  m.python_version = "3.11.2";
  m.torch_version = "1.13.1";
  m.device = "cuda:0 (NVIDIA H200)";
  m.hostname = "node7";
  m.tvis_version = "0.1.0";
  m.started_unix_ms = 1767225600123;
  m.finished_unix_ms = 1767225700456;
  m.steps_requested = 5;
  m.steps_recorded = 4;
  m.complete = true;
  m.exit_code = 3;
  m.exception = "RuntimeError: boom";
  m.traceback = "Traceback (most recent call last): ...";
  auto n = make<sc::NoticeT>();
  n->code = "workers_in_main";
  n->message = "DataLoader workers ran in the main process";
  m.notices.push_back(std::move(n));
  m.options.push_back(kv("max_elems", "65536"));
  auto t = make<sc::PhaseTimingT>();
  t->step = 2;
  t->phase = sc::Phase::Backward;
  t->ns = 123456789;
  m.phase_timings.push_back(std::move(t));
  m.optimizer_class = "AdamW";
  return m;
}

sc::SourceFilesT source_files() {
  sc::SourceFilesT s;
  auto f = make<sc::SourceFileT>();
  f->id = 7;
  f->path = "/home/u/proj/train.py";
  f->display_path = "train.py";
  f->text = "import torch\nprint('héllo')\n";
  s.files.push_back(std::move(f));
  return s;
}

sc::EventBatchT event_batch() {
  sc::EventBatchT b;
  auto e = make<sc::EventT>();
  e->id = 41;
  e->parent = 40;
  e->kind = sc::EventKind::GraphOp;
  e->step = 3;
  e->phase = sc::Phase::Forward;
  e->name = "layer1.0.conv2";
  e->class_name = "Conv2d";
  e->call_file = 1;
  e->call_line = 22;
  e->def_file = 2;
  e->def_line = 33;
  e->t_begin_ns = 1000;
  e->t_end_ns = 2000;
  e->inputs = {1, 2};
  e->outputs = {3};
  e->grad_outputs = {4};
  e->grad_norm = 0.5;
  e->sample_grad_norms = {0.25, 0.125};
  e->sample = 2;
  e->detail.push_back(kv("reduction", "'mean'"));
  b.events.push_back(std::move(e));
  return b;
}

sc::TensorBatchT tensor_batch() {
  sc::TensorBatchT b;
  auto t = make<sc::TensorRecordT>();
  t->id = 9;
  t->event = 41;
  t->role = sc::TensorRole::EmbeddingTable;
  t->slot = 1;
  t->name = "weight";
  t->step = 3;
  t->sample = 1;
  t->shape = {4, 3, 2};
  t->dtype = sc::DType::BFloat16;
  t->device = "cuda:0";
  t->requires_grad = true;
  t->stats = stats();
  t->kept = sc::ValuesKept::LeadingRows;
  t->kept_rows = 2;
  t->data_chunk = 5;
  t->data_offset = 64;
  t->data_size = 24;
  t->value_kind = sc::ValueKind::NDArray;
  b.tensors.push_back(std::move(t));
  return b;
}

sc::TensorDataT tensor_data() {
  sc::TensorDataT d;
  for (int i = 0; i < 1000; ++i) d.bytes.push_back(uint8_t(i * 7));
  return d;
}

sc::OptimizerStepRecordT optimizer_step() {
  sc::OptimizerStepRecordT o;
  o.step = 3;
  o.event = 77;
  o.optimizer_class = "AdamW";
  auto g = make<sc::ParamGroupT>();
  g->hyper.push_back(kv("lr", "0.001"));
  g->params = {"fc.weight", "fc.bias"};
  o.groups.push_back(std::move(g));
  auto p = make<sc::ParamRecordT>();
  p->name = "fc.weight";
  p->weight = 10;
  p->grad = 11;
  p->update = 12;
  o.params.push_back(std::move(p));
  return o;
}

sc::SampleBatchT sample_batch() {
  sc::SampleBatchT b;
  b.step = 2;
  b.batch_event = 50;
  b.batch = {60, 61};
  auto s = make<sc::SampleT>();
  s->id = 3;
  s->step = 2;
  s->dataset_index = 1234;
  s->batch_position = 5;
  s->label = "cat";
  s->label_index = 3;
  s->input = 60;
  auto t = make<sc::TransformStepT>();
  t->name = "RandomRotation(degrees=[-10.0, 10.0])";
  t->class_name = "RandomRotation";
  t->event = 51;
  t->input = 62;
  t->output = 63;
  t->input_kind = sc::ValueKind::PILImage;
  t->output_kind = sc::ValueKind::Scalar;
  t->rng_state = 64;
  s->transforms.push_back(std::move(t));
  b.samples.push_back(std::move(s));
  return b;
}

sc::LossRecordT loss_record() {
  sc::LossRecordT l;
  l.step = 2;
  l.event = 70;
  l.call = "torch.nn.functional.cross_entropy";
  l.reduction = "mean";
  l.args.push_back(kv("label_smoothing", "0.1"));
  l.value = 2.302585092994046;
  l.value_repr = "2.302585092994046";
  l.targets = 71;
  l.logits = 72;
  auto s = make<sc::SampleLossT>();
  s->sample = 1;
  s->batch_row = 4;
  s->logits = 72;
  s->target = 3;
  s->p_target = 0.25;
  s->neg_log_p = 1.3862943611198906;
  s->loss = 1.3862943611198906;
  s->predicted = 2;
  l.samples.push_back(std::move(s));
  l.tokens = make<sc::TokenLayoutT>();
  l.tokens->batch = 2;
  l.tokens->tokens = 16;
  l.tokens->vocab = 50257;
  l.tokens->ignore_index = -1;
  l.tokens->ignored = {3, 17};
  l.tokens->token_losses = 73;
  return l;
}

sc::InsightBatchT insight_batch() {
  sc::InsightBatchT b;
  auto a = make<sc::AttentionRecordT>();
  a->step = 1;
  a->module_ = "blocks.0.attn";
  a->event = 80;
  a->sample = 2;
  a->shape = {8, 4, 24, 24};
  a->weights = 81;
  a->tokens = {101, 2023, 102};
  a->token_labels = {"[CLS]", "this", "[SEP]"};
  b.attention.push_back(std::move(a));
  auto g = make<sc::GradCamRecordT>();
  g->step = 1;
  g->module_ = "layer4.1.conv2";
  g->sample = 2;
  g->target = sc::CamTarget::True;
  g->class_index = 7;
  g->map = 82;
  b.gradcam.push_back(std::move(g));
  auto e = make<sc::EmbeddingRecordT>();
  e->step = 1;
  e->module_ = "avgpool";
  e->samples = {0, 1};
  e->labels = {"cat", "dog"};
  e->vectors = 83;
  b.embeddings.push_back(std::move(e));
  auto t = make<sc::EmbeddingTableRecordT>();
  t->module_ = "tok_emb";
  t->rows = 84;
  t->labels = {"the", "a"};
  b.tables.push_back(std::move(t));
  auto la = make<sc::LibraryAttentionT>();
  la->module_ = "encoder.layers.0.self_attention";
  la->kind = "nn.MultiheadAttention";
  b.library_attention.push_back(std::move(la));
  return b;
}

sc::ProfileCaptureT profile_capture() {
  sc::ProfileCaptureT p;
  p.profile = "audit_small";
  p.model = "pkg.models:Net";
  p.ok = true;
  p.stage = "forward";
  p.setup.push_back(kv("mode", "eval"));
  auto n = make<sc::GraphNodeT>();
  n->id = 3;
  n->op = "conv2d";
  n->module_ = "conv1";
  n->inputs = {1, 2};
  n->output_shapes.push_back(operand("out"));
  n->event = 90;
  p.nodes.push_back(std::move(n));
  p.partial = true;
  p.outputs.push_back(operand("logits"));
  auto d = make<sc::DiagnosticT>();
  d->kind = "shape_mismatch";
  d->message = "mat1 and mat2 shapes cannot be multiplied";
  d->field = "model.hidden";
  d->operands.push_back(operand("mat1"));
  p.diagnostics.push_back(std::move(d));
  return p;
}

template <typename T>
Bytes pack(T body) {
  sc::ChunkT chunk;
  chunk.body.Set(std::move(body));
  return fmt::pack_chunk(chunk);
}

Bytes repack(const sc::Chunk* root) {
  std::unique_ptr<sc::ChunkT> obj(root->UnPack());
  return fmt::pack_chunk(*obj);
}

struct Written {
  fmt::ChunkKind kind;
  fmt::ChunkFilter filter;
  Bytes raw;
};

}  // namespace

TEST_CASE("every schema table survives a write and a read", "[roundtrip]") {
  std::vector<Written> chunks = {
      {fmt::ChunkKind::RunMeta, fmt::ChunkFilter::None, pack(run_meta())},
      {fmt::ChunkKind::SourceFiles, fmt::ChunkFilter::None, pack(source_files())},
      {fmt::ChunkKind::Events, fmt::ChunkFilter::Shuffle8, pack(event_batch())},
      {fmt::ChunkKind::Tensors, fmt::ChunkFilter::None, pack(tensor_batch())},
      {fmt::ChunkKind::TensorData, fmt::ChunkFilter::Shuffle4, pack(tensor_data())},
      {fmt::ChunkKind::TensorData, fmt::ChunkFilter::Shuffle2, pack(tensor_data())},
      {fmt::ChunkKind::OptimizerStep, fmt::ChunkFilter::None, pack(optimizer_step())},
      {fmt::ChunkKind::Samples, fmt::ChunkFilter::None, pack(sample_batch())},
      {fmt::ChunkKind::Loss, fmt::ChunkFilter::None, pack(loss_record())},
      {fmt::ChunkKind::Insights, fmt::ChunkFilter::None, pack(insight_batch())},
      {fmt::ChunkKind::ProfileCapture, fmt::ChunkFilter::None, pack(profile_capture())},
  };
  const std::string path = tvis::test::temp_path("roundtrip.tvis");
  {
    auto w = fmt::RunWriter::create(path);
    REQUIRE(w.ok());
    for (size_t i = 0; i < chunks.size(); ++i) {
      fmt::ChunkInfo info;
      info.kind = uint16_t(chunks[i].kind);
      info.filter = chunks[i].filter;
      info.step_first = int32_t(i);
      info.step_last = int32_t(i + 1);
      info.event_first = 100 * i;
      info.event_last = 100 * i + 99;
      REQUIRE(w.value()->append(info, chunks[i].raw) == i);
    }
    REQUIRE(w.value()->finalize().is_ok());
  }
  auto src = fmt::open_file_source(path);
  REQUIRE(src.ok());
  auto reader = fmt::RunReader::open_sync(src.value());
  REQUIRE(reader.ok());
  fmt::RunReader& r = *reader.value();
  REQUIRE(r.complete());
  REQUIRE(r.chunks().size() == chunks.size());

  std::vector<std::shared_ptr<const fmt::DecodedChunk>> decoded;
  for (uint32_t i = 0; i < chunks.size(); ++i) {
    INFO("chunk " << i << " (" << fmt::chunk_kind_name(uint16_t(chunks[i].kind)) << ")");
    const fmt::ChunkEntry& e = r.chunks()[i];
    CHECK(e.ordinal == i);
    CHECK(e.info.kind == uint16_t(chunks[i].kind));
    CHECK(e.info.filter == chunks[i].filter);
    CHECK(e.info.step_first == int32_t(i));
    CHECK(e.info.step_last == int32_t(i + 1));
    CHECK(e.info.event_first == 100 * i);
    CHECK(e.info.event_last == 100 * i + 99);
    CHECK(e.raw_size == chunks[i].raw.size());
    auto c = r.read_chunk_sync(i);
    REQUIRE(c.ok());
    CHECK(c.value()->bytes() == chunks[i].raw);         // the container gives back what was written
    CHECK(repack(c.value()->root()) == chunks[i].raw);  // every field survives the object API too
    decoded.push_back(c.value());
  }

  // Field spot checks through the zero-copy accessors.
  const auto* meta = decoded[0]->root()->body_as_RunMeta();
  REQUIRE(meta);
  CHECK(meta->kind() == sc::RunKind::ProfileCapture);
  CHECK(meta->argv()->Get(2)->str() == "3e-4");
  CHECK(meta->started_unix_ms() == 1767225600123);
  CHECK(meta->notices()->Get(0)->code()->str() == "workers_in_main");
  CHECK(meta->phase_timings()->Get(0)->ns() == 123456789);
  CHECK(meta->exception()->str() == "RuntimeError: boom");
  CHECK(decoded[1]->root()->body_as_SourceFiles()->files()->Get(0)->text()->str() == "import torch\nprint('héllo')\n");
  const auto* ev = decoded[2]->root()->body_as_EventBatch()->events()->Get(0);
  CHECK(ev->kind() == sc::EventKind::GraphOp);
  CHECK(ev->parent() == 40);
  CHECK(ev->grad_norm() == 0.5);
  CHECK(ev->sample_grad_norms()->Get(1) == 0.125);
  CHECK(ev->detail()->Get(0)->value()->str() == "'mean'");
  const auto* t = decoded[3]->root()->body_as_TensorBatch()->tensors()->Get(0);
  CHECK(t->dtype() == sc::DType::BFloat16);
  CHECK(t->stats()->nan_count() == 2);
  CHECK(t->stats()->histogram()->Get(3) == 91);
  CHECK(t->kept() == sc::ValuesKept::LeadingRows);
  CHECK(t->value_kind() == sc::ValueKind::NDArray);
  CHECK(decoded[4]->root()->body_as_TensorData()->bytes()->Get(999) == uint8_t(999 * 7));
  CHECK(decoded[6]->root()->body_as_OptimizerStepRecord()->params()->Get(0)->update() == 12);
  CHECK(decoded[7]->root()->body_as_SampleBatch()->samples()->Get(0)->transforms()->Get(0)->rng_state() == 64);
  const auto* loss = decoded[8]->root()->body_as_LossRecord();
  CHECK(loss->value() == 2.302585092994046);
  CHECK(loss->tokens()->ignore_index() == -1);
  CHECK(loss->samples()->Get(0)->neg_log_p() == 1.3862943611198906);
  const auto* ins = decoded[9]->root()->body_as_InsightBatch();
  CHECK(ins->attention()->Get(0)->token_labels()->Get(0)->str() == "[CLS]");
  CHECK(ins->gradcam()->Get(0)->target() == sc::CamTarget::True);
  CHECK(ins->tables()->Get(0)->module_()->str() == "tok_emb");
  const auto* prof = decoded[10]->root()->body_as_ProfileCapture();
  CHECK(prof->diagnostics()->Get(0)->operands()->Get(0)->shape()->Get(1) == -1);
  CHECK(prof->nodes()->Get(0)->output_shapes()->Get(0)->dtype()->str() == "float32");
}

TEST_CASE("a chunk whose FlatBuffer body disagrees with its kind is refused", "[roundtrip]") {
  const std::string path = tvis::test::temp_path("wrong_body.tvis");
  {
    auto w = fmt::RunWriter::create(path);
    REQUIRE(w.ok());
    fmt::ChunkInfo info;
    info.kind = uint16_t(fmt::ChunkKind::Events);  // but the body is a LossRecord
    w.value()->append(info, pack(loss_record()));
    info.kind = uint16_t(fmt::ChunkKind::Loss);
    w.value()->append(info, Bytes(64, 0xAB));  // not a FlatBuffer at all
    REQUIRE(w.value()->finalize().is_ok());
  }
  auto reader = fmt::RunReader::open_sync(fmt::open_file_source(path).value());
  REQUIRE(reader.ok());
  auto c0 = reader.value()->read_chunk_sync(0);
  REQUIRE_FALSE(c0.ok());
  CHECK(c0.status().code == fmt::ErrorCode::Corrupt);
  CHECK(c0.status().message == "chunk 0 (events) at offset 16: FlatBuffer body is LossRecord, expected EventBatch");
  auto c1 = reader.value()->read_chunk_sync(1);
  REQUIRE_FALSE(c1.ok());
  CHECK(c1.status().message.find("chunk 1 (loss)") == 0);
  CHECK(c1.status().message.find("not a valid tvis FlatBuffer") != std::string::npos);
}
