// The agent client and the local store against hostile peers and files
// (issue 29: items 4, 8, 11).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tvis/format/byte_source.h"
#include "tvis/remote/agent.h"
#include "tvis/remote/agent_client.h"
#include "tvis/remote/agent_store.h"
#include "tvis/remote/frame_io.h"
#include "tvis/remote/protocol.h"
#include "tvis/remote/run_catalog.h"

namespace fs = std::filesystem;
using namespace tvis::remote;
using tvis::test::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

/// A file holding what a scripted agent prints: the greeting, its Hello, then `more`.
std::string scripted_agent_output(const TempDir& dir, const std::string& more) {
  const std::string name = (dir.path / "agent_output").string();
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(write_all(fd, std::string(kSyncLine) + encode_frame({0, MessageType::Hello, hello_payload(kProtocolVersion)}) + more));
  ::close(fd);
  return name;
}

}  // namespace

TEST_CASE("an agent that never answers fails the call after the limit, not the caller", "[remote]") {
  TempDir dir;
  const std::string out = scripted_agent_output(dir, "");
  AgentLimits limits;
  limits.call = std::chrono::milliseconds(500);
  // It says Hello, then reads nothing and answers nothing (a stalled ssh), and ignores SIGTERM.
  auto c = AgentClient::start({"/bin/sh", "-c", "trap '' TERM; cat " + out + "; sleep 60"}, limits);
  REQUIRE(c.ok);
  const auto t0 = Clock::now();
  auto r = c.value->call(MessageType::Stat, "run.tvis");
  CHECK_FALSE(r.ok);
  CHECK(r.kind == ErrorKind::TimedOut);
  CHECK(r.error.find("did not answer within 0.5 s") != std::string::npos);
  CHECK(Clock::now() - t0 < std::chrono::seconds(3));
  // The connection is done: the next call fails at once, and ending the client does not hang.
  CHECK_FALSE(c.value->call(MessageType::Stat, "run.tvis").ok);
  const auto t1 = Clock::now();
  c.value.reset();
  CHECK(Clock::now() - t1 < std::chrono::seconds(5));
}

TEST_CASE("a store over a stalled agent answers each request with TimedOut", "[remote]") {
  TempDir dir;
  const std::string out = scripted_agent_output(dir, "");
  AgentLimits limits;
  limits.call = std::chrono::milliseconds(300);
  AgentStore store([out] { return Outcome<std::vector<std::string>>::good({"/bin/sh", "-c", "cat " + out + "; sleep 60"}); },
                   "test:stalled", "", limits);
  const auto t0 = Clock::now();
  auto r = store.read("run.tvis", 0, 10);
  CHECK_FALSE(r.ok);
  CHECK(r.kind == ErrorKind::TimedOut);
  CHECK(Clock::now() - t0 < std::chrono::seconds(3));  // one wait, no second one after a reconnect
}

TEST_CASE("a reply longer than the frame limit arrives as Parts and is joined", "[remote]") {
  TempDir dir;
  // The agent's side: write_reply splits an Ok payload of 40 MiB into frames within the limit.
  const std::string big(40u << 20, 'L');
  const std::string frames = (dir.path / "frames").string();
  {
    const int fd = ::open(frames.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(write_reply(fd, {1, MessageType::Ok, big}));
    ::close(fd);
    const int in = ::open(frames.c_str(), O_RDONLY);
    Frame f;
    std::string error;
    size_t parts = 0;
    while (read_frame(in, &f, &error) == ReadFrameResult::Ok) {
      CHECK(f.payload.size() <= kMaxPartBody);
      if (f.type == MessageType::Part) ++parts;
    }
    ::close(in);
    CHECK(parts == 2);
  }
  // The client's side: the List call returns all 40 MiB.
  std::string bytes;
  {
    std::ifstream in(frames, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string out = scripted_agent_output(dir, bytes);
  auto c = AgentClient::start({"/bin/sh", "-c", "cat " + out + "; sleep 5"});
  REQUIRE(c.ok);
  auto r = c.value->call(MessageType::List, "");
  REQUIRE(r.ok);
  CHECK(r.value == big);
}

TEST_CASE("Error frames carry their kind", "[remote]") {
  ErrorKind k;
  std::string m;
  parse_error(error_payload(ErrorKind::NotFound, "no such run file: x"), &k, &m);
  CHECK(k == ErrorKind::NotFound);
  CHECK(m == "no such run file: x");
  parse_error(std::string("\xff" "odd"), &k, &m);
  CHECK(k == ErrorKind::Failed);
}

TEST_CASE("a FIFO is not a run: the store, the agent and the reader refuse it without waiting", "[remote]") {
  TempDir dir;
  fs::create_directories(dir.path / "20260101-000000_a_000001");
  const std::string fifo_run = (dir.path / "20260101-000000_a_000001" / "run.tvis").string();
  const std::string fifo_rank = (dir.path / "20260101-000000_a_000001" / "rank1.tvis").string();
  REQUIRE(::mkfifo(fifo_run.c_str(), 0600) == 0);
  REQUIRE(::mkfifo(fifo_rank.c_str(), 0600) == 0);
  const auto t0 = Clock::now();
  // The reader's file source (inspect, tvis-view, the catalog's cards).
  auto src = tvis::format::open_file_source(fifo_run);
  CHECK_FALSE(src.ok());
  // The local store, as `tvis open` and the agent serve it: a folder, and the FIFO named alone.
  auto folder = open_local_store(dir.path.string());
  REQUIRE(folder.ok);
  CHECK(folder.value->list().ok);
  auto r = folder.value->read("20260101-000000_a_000001/run.tvis", 0, 1);
  CHECK_FALSE(r.ok);
  CHECK(r.kind == ErrorKind::NotFound);
  auto st = folder.value->stat("20260101-000000_a_000001/rank1.tvis");
  CHECK_FALSE(st.ok);
  CHECK(st.kind == ErrorKind::NotFound);
  auto alone = open_local_store(fifo_run);
  REQUIRE(alone.ok);
  CHECK(alone.value->list().ok);
  CHECK_FALSE(alone.value->read("run.tvis", 0, 1).ok);
  CHECK(Clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("the run catalog survives a run folder named by bytes that are not UTF-8 (issue 29 item 5)") {
  TempDir dir;
  const std::string folder = std::string("run\xff\xfe") + "x";
  fs::create_directories(dir.path / folder);
  std::ofstream(dir.path / folder / "run.tvis") << "not a run";
  std::string text;
  REQUIRE_NOTHROW(text = run_catalog_json(dir.path.string(), {folder + "/run.tvis"}));
  const auto j = nlohmann::json::parse(text, nullptr, false);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 1);
  CHECK(text.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD stands for each invalid byte
}

namespace {

/// An AgentStore whose agent answers its List (request 1) with `answer`,
/// once it has read the client's Hello and that request (an answer sent
/// before the request is registered would be one nobody asked for).
std::shared_ptr<AgentStore> store_answering_list(const TempDir& dir, const std::string& answer) {
  const std::string reply = (dir.path / "list_reply").string();
  const int fd = ::open(reply.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(write_reply(fd, {1, MessageType::Ok, answer}));
  ::close(fd);
  const std::string greeting = scripted_agent_output(dir, "");
  const size_t asked = encode_frame({0, MessageType::Hello, hello_payload(kProtocolVersion)}).size() +
                       encode_frame({1, MessageType::List, ""}).size();
  const std::string script =
      "cat " + greeting + "; head -c " + std::to_string(asked) + " > /dev/null; cat " + reply + "; sleep 5";
  return std::make_shared<AgentStore>(
      [script]() { return Outcome<std::vector<std::string>>::good({"/bin/sh", "-c", script}); }, "hostile:runs", "");
}

std::string repeated(const std::string& item, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) s += (i ? "," : "") + item;
  return s + "]";
}

}  // namespace

TEST_CASE("a List answer is bounded before anyone parses it: bytes, runs, values, depth", "[remote]") {
  // A real catalog passes, whatever its strings hold.
  const std::string real =
      R"([{"path": "a/run.tvis", "name": "a,[{", "argv": ["train.py", "--x=\"]]\\"], "steps": 3, "complete": true, "rank_files": ["a/run.tvis"]},)"
      R"( {"path": "b/run.tvis", "error": null, "size": 12}])";
  CHECK(list_answer_problem(real).empty());
  CHECK(list_answer_problem("[]").empty());
  CHECK(list_answer_problem(" \n[ ]").empty());
  CHECK(list_answer_problem(repeated("{\"path\":\"x/run.tvis\"}", kMaxListEntries)).empty());
  CHECK(list_answer_problem(repeated("{}", kMaxListEntries + 1)).find("more than 20000 runs") != std::string::npos);
  CHECK(list_answer_problem(repeated("1", kMaxListEntries + 1)).find("runs") != std::string::npos);
  // Few runs, each holding a huge array: the values count.
  const std::string wide = "[{\"argv\":" + repeated("0", kMaxListValues) + "}]";
  CHECK(list_answer_problem(wide).find("JSON values") != std::string::npos);
  CHECK(list_answer_problem(std::string(kMaxListDepth + 1, '[') + std::string(kMaxListDepth + 1, ']')).find("nests deeper") !=
        std::string::npos);
  CHECK(list_answer_problem("[\"" + std::string(kMaxListBytes, 'x') + "\"]").find("bytes (at most") != std::string::npos);
  CHECK(list_answer_problem("{\"a\": 1}").find("not a JSON array") != std::string::npos);
  CHECK(list_answer_problem("").find("not a JSON array") != std::string::npos);
}

TEST_CASE("an agent's List over the bounds is refused as too large, not handed on", "[remote]") {
  TempDir dir;
  auto store = store_answering_list(dir, "[\"" + std::string(kMaxListBytes + 10, 'x') + "\"]");  // legal: under kMaxReplyBytes
  auto r = store->list();
  REQUIRE_FALSE(r.ok);
  CHECK(r.kind == ErrorKind::TooLarge);
  CHECK(r.value.empty());
  TempDir dir2;
  auto many = store_answering_list(dir2, repeated("{}", kMaxListEntries + 1));
  auto m = many->list();
  INFO(m.error);
  REQUIRE_FALSE(m.ok);
  CHECK(m.kind == ErrorKind::TooLarge);
  TempDir dir3;
  auto fine = store_answering_list(dir3, R"([{"path": "run.tvis"}])");
  auto f = fine->list();
  INFO(f.error);
  REQUIRE(f.ok);
  CHECK(f.value == R"([{"path": "run.tvis"}])");
}
