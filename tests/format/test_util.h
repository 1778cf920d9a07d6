// test_util.h: helpers shared by the format tests (temporary files, whole
// file reads and writes, small synthetic runs).
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "synthetic_run.h"
#include "tvis/format/byte_source.h"
#include "tvis/format/run_reader.h"

namespace tvis::test {

using format::Bytes;

/// A fresh folder under $TMPDIR (or /tmp) for this test process, removed
/// with its contents when the process exits.
inline std::string temp_dir() {
  struct Folder {
    std::string path;
    Folder() {
      const char* base = std::getenv("TMPDIR");
      path = std::string(base && *base ? base : "/tmp") + "/tvis_format_test_XXXXXX";
      if (!mkdtemp(path.data())) std::abort();
    }
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static Folder folder;
  return folder.path;
}

inline std::string temp_path(const std::string& name) { return temp_dir() + "/" + name; }

inline Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

/// The bytes of a small synthetic run (tiny tensors), written by the writer.
inline Bytes tiny_run(int steps = 1, bool finalize = true, uint16_t minor = 0) {
  synth::SynthOptions o;
  o.steps = steps;
  o.calls = 3 * uint64_t(steps);
  o.tiny = true;
  o.finalize = finalize;
  o.version_minor = minor;
  const std::string path = temp_path("tiny_" + std::to_string(steps) + (finalize ? "" : "_nf") + "_" +
                                     std::to_string(minor) + ".tvis");
  auto r = synth::write_synthetic_run(path, o);
  if (!r.ok()) std::abort();
  return read_file(path);
}

inline std::shared_ptr<format::ByteSource> memory(Bytes bytes) {
  return format::make_memory_source(std::move(bytes), "memory");
}

inline format::Result<std::shared_ptr<format::RunReader>> open_bytes(Bytes bytes) {
  return format::RunReader::open_sync(memory(std::move(bytes)));
}

}  // namespace tvis::test
