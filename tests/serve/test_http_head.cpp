#include <catch2/catch.hpp>

#include <string>

#include "http_head.h"

using namespace tvis::serve;

namespace {

HeadParse parse(const std::string& s, RequestHead* h, HeadLimits limits = {}) {
  return parse_request_head(s.data(), s.size(), limits, h);
}

}  // namespace

TEST_CASE("a request head parses: path and query decoded, names lower-cased, keep-alive", "[serve]") {
  RequestHead h;
  const std::string req = "GET /run/a%20b/run.tvis?token=ab&x=1+2 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nRange:  bytes=0-9 \r\n\r\nBODY";
  const HeadParse p = parse(req, &h);
  REQUIRE(p.error == HeadError::None);
  CHECK(p.consumed == req.size() - 4);
  CHECK(h.method == "GET");
  CHECK(h.path == "/run/a b/run.tvis");
  CHECK(h.params.at("token") == "ab");
  CHECK(h.params.at("x") == "1 2");
  CHECK(h.header("range") == "bytes=0-9");
  CHECK(h.keep_alive);
}

TEST_CASE("a head is judged within its limits: never buffered past max_head_bytes", "[serve]") {
  RequestHead h;
  HeadLimits limits;
  limits.max_head_bytes = 1024;
  std::string head = "GET / HTTP/1.1\r\n";
  CHECK(parse(head, &h, limits).error == HeadError::Incomplete);
  while (head.size() < 1024) head += "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaa\r\n";
  CHECK(parse(head, &h, limits).error == HeadError::TooLarge);
  limits.max_head_bytes = 1 << 20;
  limits.max_headers = 8;
  CHECK(parse(head + "\r\n", &h, limits).error == HeadError::TooManyHeaders);
  CHECK(head_error_status(HeadError::TooLarge) == 431);
  CHECK(head_error_status(HeadError::TooManyHeaders) == 431);
}

TEST_CASE("malformed heads are specific errors", "[serve]") {
  RequestHead h;
  CHECK(parse("GET / HTTP/2.0\r\n\r\n", &h).error == HeadError::BadVersion);
  CHECK(parse("GET / FOO\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET nopath HTTP/1.1\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET /%zz HTTP/1.1\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET /%4 HTTP/1.1\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET / HTTP/1.1\r\nNo colon\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET / HTTP/1.1\r\nName : v\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("GET / HTTP/1.1\r\nX: a\x01" "b\r\n\r\n", &h).error == HeadError::Malformed);
  CHECK(parse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &h).error == HeadError::BadLength);
  CHECK(parse("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", &h).error == HeadError::BadLength);
  CHECK(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &h).error == HeadError::Unsupported);
  RequestHead h10;
  REQUIRE(parse("GET / HTTP/1.0\r\n\r\n", &h10).error == HeadError::None);
  CHECK_FALSE(h10.keep_alive);
}

TEST_CASE("a second Host field is refused: 400, whatever the first said", "[serve]") {
  RequestHead h;
  CHECK(parse("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\nHost: evil.example\r\n\r\n", &h).error == HeadError::RepeatedHost);
  CHECK(parse("GET / HTTP/1.1\r\nhost: a\r\nX: y\r\nHOST: a\r\n\r\n", &h).error == HeadError::RepeatedHost);
  CHECK(head_error_status(HeadError::RepeatedHost) == 400);
  CHECK(std::string(head_error_text(HeadError::RepeatedHost)).find("Host") != std::string::npos);
  CHECK(parse("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", &h).error == HeadError::None);
}
