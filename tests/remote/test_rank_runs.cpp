// A distributed run (docs/run_layout.md: run.tvis is rank 0, rank<k>.tvis
// rank k) in `tvis open`'s stores: listed once with its rank files, each
// rank file read by range through the agent like run.tvis, and a store
// opened on one rank file serving that run's other rank files (the viewer
// opens them together) but nothing else.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "temp_dir.h"
#include "tvis/remote/agent.h"
#include "tvis/remote/frame_io.h"
#include "tvis/remote/protocol.h"
#include "tvis/remote/run_store.h"

namespace fs = std::filesystem;
using namespace tvis::remote;

namespace {

using tvis::test::TempDir;

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// A Read request's payload (protocol.h).
std::string read_request(uint64_t offset, uint32_t length, const std::string& path) {
  std::string p;
  put_u64(p, offset);
  put_u32(p, length);
  return p + path;
}

// A runs folder: a distributed run of two ranks and a plain run.
fs::path make_runs(const TempDir& tmp) {
  const fs::path runs = tmp.path / "runs";
  fs::create_directories(runs / "20260102-120000_ddp_000002");
  fs::create_directories(runs / "20260101-120000_plain_000001");
  write(runs / "20260102-120000_ddp_000002" / "run.tvis", "rank zero");
  write(runs / "20260102-120000_ddp_000002" / "rank1.tvis", "rank one!!");
  write(runs / "20260102-120000_ddp_000002" / "notes.txt", "not a rank");
  write(runs / "20260101-120000_plain_000001" / "run.tvis", "plain");
  return runs;
}

}  // namespace

TEST_CASE("a distributed run is listed once with its rank files; a plain run with one", "[remote][ranks]") {
  TempDir tmp("tvis-ranks");
  const fs::path runs = make_runs(tmp);
  auto store = open_local_store(runs.string());
  REQUIRE(store.ok);
  auto list = store.value->list();
  REQUIRE(list.ok);
  const nlohmann::json cards = nlohmann::json::parse(list.value);
  REQUIRE(cards.size() == 2);
  CHECK(cards[0]["path"] == "20260102-120000_ddp_000002/run.tvis");
  CHECK(cards[0]["ranks"] == 2);
  CHECK(cards[0]["rank_files"] ==
        nlohmann::json::array({"20260102-120000_ddp_000002/run.tvis", "20260102-120000_ddp_000002/rank1.tvis"}));
  CHECK(cards[1]["ranks"] == 1);
  CHECK(cards[1]["rank_files"] == nlohmann::json::array({"20260101-120000_plain_000001/run.tvis"}));
  auto r = store.value->read("20260102-120000_ddp_000002/rank1.tvis", 5, 3);
  REQUIRE(r.ok);
  CHECK(r.value.bytes == "one");
}

TEST_CASE("the agent reads a rank file by range like run.tvis", "[remote][ranks]") {
  TempDir tmp("tvis-ranks");
  const fs::path runs = make_runs(tmp);
  int to_agent[2], from_agent[2];
  REQUIRE(::pipe(to_agent) == 0);
  REQUIRE(::pipe(from_agent) == 0);
  int rc = -1;
  std::thread agent([&] {
    rc = serve_agent(runs.string(), to_agent[0], from_agent[1], AgentOptions{kProtocolVersion});
    ::close(from_agent[1]);
  });
  std::string skipped;
  REQUIRE(read_sync_line(from_agent[0], &skipped));
  auto ask = [&](uint32_t id, MessageType type, const std::string& payload) {
    REQUIRE(write_all(to_agent[1], encode_frame({id, type, payload})));
    Frame f;
    std::string error;
    REQUIRE(read_frame(from_agent[0], &f, &error) == ReadFrameResult::Ok);
    return f;
  };
  ask(0, MessageType::Hello, hello_payload(kProtocolVersion));
  Frame list = ask(1, MessageType::List, "");
  REQUIRE(list.type == MessageType::Ok);
  CHECK(list.payload.find("\"rank_files\":[\"20260102-120000_ddp_000002/run.tvis\",\"20260102-120000_ddp_000002/rank1.tvis\"]") !=
        std::string::npos);
  Frame rd = ask(2, MessageType::Read, read_request(0, 4, "20260102-120000_ddp_000002/rank1.tvis"));
  REQUIRE(rd.type == MessageType::Ok);
  size_t at = 0;
  uint64_t size = 0;
  REQUIRE(get_u64(rd.payload, &at, &size));
  CHECK(size == 10);
  CHECK(rd.payload.substr(at) == "rank");
  ::close(to_agent[1]);
  agent.join();
  ::close(to_agent[0]);
  ::close(from_agent[0]);
  CHECK(rc == 0);
}

TEST_CASE("a store on one rank file serves its run's other rank files, nothing else", "[remote][ranks]") {
  TempDir tmp("tvis-ranks");
  const fs::path runs = make_runs(tmp);
  const fs::path run = runs / "20260102-120000_ddp_000002";
  auto store = open_local_store((run / "rank1.tvis").string());
  REQUIRE(store.ok);
  auto list = store.value->list();
  REQUIRE(list.ok);
  const nlohmann::json cards = nlohmann::json::parse(list.value);
  REQUIRE(cards.size() == 1);
  CHECK(cards[0]["path"] == "rank1.tvis");
  CHECK(cards[0]["ranks"] == 2);
  CHECK(cards[0]["rank_files"] == nlohmann::json::array({"run.tvis", "rank1.tvis"}));
  CHECK(store.value->read("run.tvis", 0, 4).ok);
  CHECK_FALSE(store.value->read("notes.txt", 0, 3).ok);
  CHECK_FALSE(store.value->read("rank2.tvis", 0, 3).ok);
  // A plain run file alone serves only itself.
  auto plain = open_local_store((runs / "20260101-120000_plain_000001" / "run.tvis").string());
  REQUIRE(plain.ok);
  const nlohmann::json plain_cards = nlohmann::json::parse(plain.value->list().value);
  CHECK(plain_cards[0]["ranks"] == 1);
}
