#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "temp_dir.h"
#include "tvis/remote/agent.h"
#include "tvis/remote/agent_client.h"
#include "tvis/remote/frame_io.h"
#include "tvis/remote/protocol.h"

namespace fs = std::filesystem;
using namespace tvis::remote;

namespace {

using tvis::test::TempDir;

/// An agent on a thread, spoken to through two pipes.
struct PipeAgent {
  int to_agent[2], from_agent[2];
  std::thread thread;
  int rc = -1;
  PipeAgent(const std::string& root, uint32_t version = kProtocolVersion) {
    REQUIRE(::pipe(to_agent) == 0);
    REQUIRE(::pipe(from_agent) == 0);
    thread = std::thread([this, root, version] {
      rc = serve_agent(root, to_agent[0], from_agent[1], AgentOptions{version});
      ::close(from_agent[1]);
    });
    std::string skipped;
    REQUIRE(read_sync_line(from_agent[0], &skipped));  // the agent's greeting comes first
    REQUIRE(skipped.empty());
  }
  Frame ask(uint32_t id, MessageType type, const std::string& payload) {
    REQUIRE(write_all(to_agent[1], encode_frame({id, type, payload})));
    Frame f;
    std::string error;
    REQUIRE(read_frame(from_agent[0], &f, &error) == ReadFrameResult::Ok);
    REQUIRE(f.id == id);
    return f;
  }
  int finish() {
    ::close(to_agent[1]);
    thread.join();
    ::close(to_agent[0]);
    ::close(from_agent[0]);
    return rc;
  }
};

std::string read_request(uint64_t offset, uint32_t length, const std::string& path) {
  std::string p;
  put_u64(p, offset);
  put_u32(p, length);
  return p + path;
}

}  // namespace

TEST_CASE("frames and Hello round-trip; a wrong magic is not a Hello", "[remote]") {
  const std::string bytes = encode_frame({7, MessageType::Read, std::string("a\0b", 3)});
  REQUIRE(bytes.size() == 4 + 4 + 1 + 3);
  int p[2];
  REQUIRE(::pipe(p) == 0);
  REQUIRE(write_all(p[1], bytes));
  ::close(p[1]);
  Frame f;
  std::string error;
  REQUIRE(read_frame(p[0], &f, &error) == ReadFrameResult::Ok);
  CHECK(f.id == 7);
  CHECK(f.type == MessageType::Read);
  CHECK(f.payload == std::string("a\0b", 3));
  CHECK(read_frame(p[0], &f, &error) == ReadFrameResult::Eof);
  ::close(p[0]);
  uint32_t v = 0;
  CHECK(parse_hello(hello_payload(42), &v));
  CHECK(v == 42);
  CHECK_FALSE(parse_hello("SSH-2.0-OpenSSH banner", &v));
}

TEST_CASE("a length beyond the limit is an error, not an allocation", "[remote]") {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  REQUIRE(write_all(p[1], "\xff\xff\xff\x7f" "xxxxx"));
  ::close(p[1]);
  Frame f;
  std::string error;
  CHECK(read_frame(p[0], &f, &error) == ReadFrameResult::Error);
  CHECK(error.find("bad frame length") != std::string::npos);
  ::close(p[0]);
}

TEST_CASE("the agent lists, stats and reads under its root and refuses escapes", "[remote]") {
  TempDir tmp;
  const fs::path runs = tmp.path / "runs";
  fs::create_directories(runs / "20260101-120000_a_000001");
  {
    std::ofstream(runs / "20260101-120000_a_000001" / "run.tvis") << "0123456789";
    std::ofstream(tmp.path / "secret") << "secret";
  }
  fs::create_symlink(tmp.path / "secret", runs / "link");
  PipeAgent agent(runs.string());
  Frame hello = agent.ask(0, MessageType::Hello, hello_payload(kProtocolVersion));
  uint32_t v = 0;
  REQUIRE(hello.type == MessageType::Hello);
  REQUIRE(parse_hello(hello.payload, &v));
  CHECK(v == kProtocolVersion);

  Frame list = agent.ask(1, MessageType::List, "");
  REQUIRE(list.type == MessageType::Ok);
  CHECK(list.payload.find("\"path\":\"20260101-120000_a_000001/run.tvis\"") != std::string::npos);
  CHECK(list.payload.find("\"error\":\"") != std::string::npos);  // not a real run: its card says so

  Frame st = agent.ask(2, MessageType::Stat, "20260101-120000_a_000001/run.tvis");
  REQUIRE(st.type == MessageType::Ok);
  size_t at = 0;
  uint64_t size = 0;
  REQUIRE(get_u64(st.payload, &at, &size));
  CHECK(size == 10);

  Frame rd = agent.ask(3, MessageType::Read, read_request(2, 5, "20260101-120000_a_000001/run.tvis"));
  REQUIRE(rd.type == MessageType::Ok);
  at = 0;
  REQUIRE(get_u64(rd.payload, &at, &size));
  CHECK(size == 10);
  CHECK(rd.payload.substr(at) == "23456");

  Frame past = agent.ask(4, MessageType::Read, read_request(8, 5, "20260101-120000_a_000001/run.tvis"));
  CHECK(past.type == MessageType::Error);
  CHECK(past.payload.find("past the end") != std::string::npos);

  for (const char* bad : {"../secret", "20260101-120000_a_000001/../../secret", "/etc/passwd", "link"}) {
    Frame f = agent.ask(5, MessageType::Read, read_request(0, 3, bad));
    INFO(bad);
    CHECK(f.type == MessageType::Error);
    CHECK((f.payload.find("escapes") != std::string::npos || f.payload.find("refused") != std::string::npos));
    CHECK((f.payload.find("secret") == std::string::npos || f.payload.find("escapes") != std::string::npos));
  }
  Frame unknown = agent.ask(6, MessageType(42), "");
  CHECK(unknown.type == MessageType::Error);
  CHECK(agent.finish() == 0);  // exits at the end of its input
}

TEST_CASE("an agent of another version answers its Hello, then refuses and exits", "[remote]") {
  TempDir tmp;
  PipeAgent agent(tmp.path.string(), kProtocolVersion + 1);
  Frame hello = agent.ask(0, MessageType::Hello, hello_payload(kProtocolVersion));
  uint32_t v = 0;
  REQUIRE(parse_hello(hello.payload, &v));
  CHECK(v == kProtocolVersion + 1);
  Frame f;
  std::string error;
  REQUIRE(read_frame(agent.from_agent[0], &f, &error) == ReadFrameResult::Ok);
  CHECK(f.type == MessageType::Error);
  CHECK(f.payload.find("speaks protocol") != std::string::npos);
  CHECK(agent.finish() == 2);
}

TEST_CASE("the client reports a command that ends before Hello, with its stderr", "[remote]") {
  auto c = AgentClient::start({"/bin/sh", "-c", "echo 'tvis: command not found' >&2; exit 127"});
  REQUIRE_FALSE(c.ok);
  CHECK(c.error.find("exited with status 127") != std::string::npos);
  CHECK(c.error.find("tvis: command not found") != std::string::npos);
  auto none = AgentClient::start({"/nonexistent/tvis-agent"});
  REQUIRE_FALSE(none.ok);
  CHECK(none.error.find("127") != std::string::npos);
}

TEST_CASE("the client refuses a peer that is not an agent, saying what it printed", "[remote]") {
  auto c = AgentClient::start({"/bin/sh", "-c", "echo 'Welcome to the cluster!'; sleep 1"});
  REQUIRE_FALSE(c.ok);
  CHECK(c.error.find("not as a tvis agent") != std::string::npos);
  CHECK(c.error.find("Welcome to the cluster!") != std::string::npos);
}

TEST_CASE("output before the agent's greeting (a login banner) is skipped", "[remote]") {
  char name[] = "/tmp/tvis-agent-replyXXXXXX";
  const int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write_all(fd, std::string(kSyncLine) + encode_frame({0, MessageType::Hello, hello_payload(kProtocolVersion)})));
  ::close(fd);
  auto c = AgentClient::start({"/bin/sh", "-c", std::string("echo 'Welcome to the cluster!'; echo 'quota: 91%'; cat ") + name + "; sleep 1"});
  ::unlink(name);
  REQUIRE(c.ok);
}

TEST_CASE("a peer that closes its stdout but lingers does not hang the client", "[remote]") {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = AgentClient::start({"/bin/sh", "-c", "exec >&-; sleep 30"});
  REQUIRE_FALSE(c.ok);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(c.error.find("killed by signal") != std::string::npos);
}
