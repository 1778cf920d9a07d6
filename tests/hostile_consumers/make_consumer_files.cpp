// make_consumer_files: writes the crafted run files that attack the readers
// of records (RunFacts, run_diff, the viewer's model indexes and pages)
// rather than the container. Each is a valid run: every chunk checksums and
// verifies; what is hostile is what the records say.
//
//   consumer_shared_vectors.tvis  every table of a chunk points at the same
//       vectors and strings (one 1 MiB id list, one 256 KiB name, ...):
//       FlatBuffers allow any number of offsets to one object, and the
//       verifier's table bound does not count them. A reader that copies
//       each table's fields copies the shared object once per table
//       (4096 times a few MiB per chunk: tens of GiB). Its RunMeta is
//       honest, so a reader opens the run and meets the events, tensors,
//       optimizer step, loss and samples chunks.
//   consumer_shared_meta.tvis     the same in the run's metadata alone: argv,
//       notices and options are 4096 entries naming one 256 KiB string.
//   consumer_million_steps.tvis   a run that says it recorded 1,000,000
//       steps (RunMeta, the chunks' step ranges, a loss at the last step)
//       but holds records for 3 of them.
//
// Usage: make_consumer_files OUT_DIR. Deterministic: the files in
// tests/data/hostile/ are this program's output, byte for byte (checked by
// the hostile_consumer_files test).
#include <cstdio>
#include <string>
#include <vector>

#include "tvis/format/chunk_kind.h"
#include "tvis/format/run_writer.h"
#include "tvis/schema/recording_generated.h"

namespace {

namespace fmt = tvis::format;
namespace sc = tvis::schema;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

constexpr int kTables = 4 * 1024;      // tables per chunk, all sharing the objects below
constexpr int kSharedIds = 128 * 1024;   // elements of the shared id / shape / histogram vectors
constexpr int kSharedText = 256 * 1024;  // bytes of the shared strings

fmt::Bytes finish(FlatBufferBuilder& b, sc::Body type, Offset<void> body) {
  sc::FinishChunkBuffer(b, sc::CreateChunk(b, type, body));
  return fmt::Bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

fmt::ChunkInfo info(fmt::ChunkKind kind, int32_t s0, int32_t s1, uint64_t e0 = UINT64_MAX, uint64_t e1 = UINT64_MAX) {
  fmt::ChunkInfo i;
  i.kind = static_cast<uint16_t>(kind);
  i.step_first = s0, i.step_last = s1, i.event_first = e0, i.event_last = e1;
  return i;
}

/// The final RunMeta of a complete run of `steps` steps; with `shared`,
/// its argv, notices and options are kTables entries of one string each.
fmt::Bytes run_meta(int steps, bool shared) {
  FlatBufferBuilder b;
  std::vector<Offset<flatbuffers::String>> argv;
  std::vector<Offset<sc::Notice>> notices;
  std::vector<Offset<sc::KeyValue>> options;
  if (shared) {
    const auto text = b.CreateString(std::string(kSharedText, 'a'));
    const auto notice = sc::CreateNotice(b, text, text);
    const auto option = sc::CreateKeyValue(b, text, text);
    argv.assign(kTables, text), notices.assign(kTables, notice), options.assign(kTables, option);
  }
  const auto script = b.CreateString("train.py");
  const auto argv_v = b.CreateVector(argv);
  const auto notices_v = b.CreateVector(notices);
  const auto options_v = b.CreateVector(options);
  sc::RunMetaBuilder m(b);
  m.add_kind(sc::RunKind::Training);
  m.add_script(script);
  m.add_argv(argv_v);
  m.add_notices(notices_v);
  m.add_options(options_v);
  m.add_started_unix_ms(1700000000000);
  m.add_finished_unix_ms(1700000060000);
  m.add_steps_requested(steps);
  m.add_steps_recorded(steps);
  m.add_complete(true);
  return finish(b, sc::Body::RunMeta, m.Finish().Union());
}

void write_shared_meta(fmt::RunWriter& w) { w.append(info(fmt::ChunkKind::RunMeta, 0, 0), run_meta(1, true)); }

void write_shared_vectors(fmt::RunWriter& w) {
  w.append(info(fmt::ChunkKind::RunMeta, 0, 0), run_meta(1, false));
  {  // Events: every event's name, ids, per-sample norms and detail are the same objects
    FlatBufferBuilder b;
    const auto id_v = b.CreateVector(std::vector<uint64_t>(kSharedIds, 1));
    const auto norms = b.CreateVector(std::vector<double>(kSharedIds / 4, 1.0));
    const auto name = b.CreateString(std::string(kSharedText, 'm'));
    const auto kv = sc::CreateKeyValue(b, name, name);
    const auto detail = b.CreateVector(std::vector<Offset<sc::KeyValue>>(4, kv));
    std::vector<Offset<sc::Event>> events;
    for (int i = 0; i < kTables; ++i)
      events.push_back(sc::CreateEvent(b, uint64_t(i), -1, sc::EventKind::ModuleCall, 0, sc::Phase::Forward, name, name,
                                       0, 0, 0, 0, int64_t(i), int64_t(i) + 1, id_v, id_v, id_v, 1.0, norms, -1, detail));
    const auto batch = sc::CreateEventBatch(b, b.CreateVector(events));
    w.append(info(fmt::ChunkKind::Events, 0, 0, 0, kTables - 1), finish(b, sc::Body::EventBatch, batch.Union()));
  }
  {  // Tensors: one shape (every dimension 1), one name, one statistics table with one histogram
    FlatBufferBuilder b;
    const auto shape = b.CreateVector(std::vector<int64_t>(kSharedIds / 8, 1));
    const auto name = b.CreateString(std::string(kSharedText, 't'));
    const auto hist = b.CreateVector(std::vector<uint32_t>(kSharedIds, 1));
    const auto stats = sc::CreateStats(b, 1, 1, 0, 0, 0, 1, 0.5, 0.1, 0.5, 1, 0, 1, hist);
    const auto thumb = b.CreateVector(std::vector<float>(kSharedIds / 8, 0.5f));
    std::vector<Offset<sc::TensorRecord>> tensors;
    for (int i = 0; i < kTables; ++i) {
      sc::TensorRecordBuilder t(b);
      t.add_id(uint64_t(i));
      t.add_event(int64_t(i));
      t.add_role(sc::TensorRole::Output);
      t.add_name(name);
      t.add_step(0);
      t.add_shape(shape);
      t.add_dtype(sc::DType::Float32);
      t.add_device(name);
      t.add_stats(stats);
      t.add_thumbnail(thumb);
      tensors.push_back(t.Finish());
    }
    const auto batch = sc::CreateTensorBatch(b, b.CreateVector(tensors));
    w.append(info(fmt::ChunkKind::Tensors, 0, 0), finish(b, sc::Body::TensorBatch, batch.Union()));
  }
  {  // OptimizerStep: every parameter and every group has the same long name and hyperparameters
    FlatBufferBuilder b;
    const auto name = b.CreateString(std::string(kSharedText, 'p'));
    const auto kv = sc::CreateKeyValue(b, name, name);
    const auto hyper = b.CreateVector(std::vector<Offset<sc::KeyValue>>(4, kv));
    const auto names = b.CreateVector(std::vector<Offset<flatbuffers::String>>(kTables / 4, name));
    const auto group = sc::CreateParamGroup(b, hyper, names);
    const auto groups = b.CreateVector(std::vector<Offset<sc::ParamGroup>>(kTables / 4, group));
    const auto param = sc::CreateParamRecord(b, name, 0, 1, 2, 3);
    const auto params = b.CreateVector(std::vector<Offset<sc::ParamRecord>>(kTables / 4, param));
    const auto cls = b.CreateString("SGD");
    const auto opt = sc::CreateOptimizerStepRecord(b, 0, 0, cls, groups, params);
    w.append(info(fmt::ChunkKind::OptimizerStep, 0, 0), finish(b, sc::Body::OptimizerStepRecord, opt.Union()));
  }
  {  // Loss: every argument is the same long key and value
    FlatBufferBuilder b;
    const auto text = b.CreateString(std::string(kSharedText, 'l'));
    const auto kv = sc::CreateKeyValue(b, text, text);
    const auto args = b.CreateVector(std::vector<Offset<sc::KeyValue>>(kTables, kv));
    const auto call = b.CreateString("torch.nn.functional.mse_loss");
    const auto mean = b.CreateString("mean");
    sc::LossRecordBuilder l(b);
    l.add_step(0);
    l.add_event(0);
    l.add_call(call);
    l.add_reduction(mean);
    l.add_args(args);
    l.add_value(1.0);
    w.append(info(fmt::ChunkKind::Loss, 0, 0), finish(b, sc::Body::LossRecord, l.Finish().Union()));
  }
  {  // Samples: every followed sample has the same long label
    FlatBufferBuilder b;
    const auto label = b.CreateString(std::string(kSharedText, 's'));
    std::vector<Offset<sc::Sample>> samples;
    for (int i = 0; i < kTables; ++i) samples.push_back(sc::CreateSample(b, i, 0, i, i, label, 0, 0));
    const auto batch_ids = b.CreateVector(std::vector<uint64_t>{0});
    const auto batch = sc::CreateSampleBatch(b, 0, 0, batch_ids, b.CreateVector(samples));
    w.append(info(fmt::ChunkKind::Samples, 0, 0), finish(b, sc::Body::SampleBatch, batch.Union()));
  }
}

/// Phase markers and one module call at `step`, its output tensor, a loss.
void write_step(fmt::RunWriter& w, int step, uint64_t first_id) {
  {
    FlatBufferBuilder b;
    const auto name = b.CreateString("fc");
    const auto cls = b.CreateString("Linear");
    const auto out = b.CreateVector(std::vector<uint64_t>{first_id});
    std::vector<Offset<sc::Event>> events;
    events.push_back(sc::CreateEvent(b, first_id, -1, sc::EventKind::PhaseBegin, step, sc::Phase::Forward));
    events.push_back(sc::CreateEvent(b, first_id + 1, -1, sc::EventKind::ModuleCall, step, sc::Phase::Forward, name, cls,
                                     0, 0, 0, 0, 10, 20, 0, out));
    events.push_back(sc::CreateEvent(b, first_id + 2, -1, sc::EventKind::PhaseEnd, step, sc::Phase::Forward));
    const auto batch = sc::CreateEventBatch(b, b.CreateVector(events));
    w.append(info(fmt::ChunkKind::Events, step, step, first_id, first_id + 2),
             finish(b, sc::Body::EventBatch, batch.Union()));
  }
  {
    FlatBufferBuilder b;
    const auto name = b.CreateString("output");
    const auto shape = b.CreateVector(std::vector<int64_t>{2, 2});
    const auto stats = sc::CreateStats(b, 4, 4, 0, 0, 0, 1, 0.5, 0.1, 0.5, 1);
    std::vector<Offset<sc::TensorRecord>> tensors;
    sc::TensorRecordBuilder t(b);
    t.add_id(first_id);
    t.add_event(int64_t(first_id + 1));
    t.add_role(sc::TensorRole::Output);
    t.add_name(name);
    t.add_step(step);
    t.add_shape(shape);
    t.add_dtype(sc::DType::Float32);
    t.add_stats(stats);
    tensors.push_back(t.Finish());
    const auto batch = sc::CreateTensorBatch(b, b.CreateVector(tensors));
    w.append(info(fmt::ChunkKind::Tensors, step, step), finish(b, sc::Body::TensorBatch, batch.Union()));
  }
  {
    FlatBufferBuilder b;
    const auto call = b.CreateString("torch.nn.functional.mse_loss");
    const auto mean = b.CreateString("mean");
    sc::LossRecordBuilder l(b);
    l.add_step(step);
    l.add_event(first_id + 1);
    l.add_call(call);
    l.add_reduction(mean);
    l.add_value(1.0 / (1 + step));
    w.append(info(fmt::ChunkKind::Loss, step, step), finish(b, sc::Body::LossRecord, l.Finish().Union()));
  }
}

void write_million_steps(fmt::RunWriter& w) {
  constexpr int kClaimed = 1000000;
  w.append(info(fmt::ChunkKind::RunMeta, 0, kClaimed - 1), run_meta(kClaimed, false));
  write_step(w, 0, 0);
  write_step(w, kClaimed / 2, 100);
  write_step(w, kClaimed - 1, 200);
}

int write(const std::string& path, void (*body)(fmt::RunWriter&)) {
  fmt::WriterOptions options;
  options.zstd_level = 19;
  auto w = fmt::RunWriter::create(path, options);
  if (!w.ok()) {
    std::fprintf(stderr, "make_consumer_files: %s\n", w.status().message.c_str());
    return 1;
  }
  body(*w.value());
  const fmt::Status s = w.value()->finalize();
  if (!s.is_ok()) {
    std::fprintf(stderr, "make_consumer_files: %s: %s\n", path.c_str(), s.message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_consumer_files OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  return write(dir + "/consumer_shared_meta.tvis", write_shared_meta) |
         write(dir + "/consumer_shared_vectors.tvis", write_shared_vectors) |
         write(dir + "/consumer_million_steps.tvis", write_million_steps);
}
