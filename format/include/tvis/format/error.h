// error.h: how the read and write halves report failure. No exceptions cross
// this layer (the browser build has them disabled); every fallible call
// returns a Status or a Result<T>.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tvis::format {

enum class ErrorCode {
  Ok = 0,
  Io,               // the source could not be read / the file not written
  NotARun,          // no tvis magic at offset 0
  NewerVersion,     // major version newer than this reader
  Truncated,        // a structure extends past the end of the source
  BadChecksum,      // a header or payload checksum does not match
  TooLarge,         // a size field exceeds a hard limit or the file size
  Corrupt,          // anything else structurally wrong (bad FlatBuffer, ...)
  Cancelled,
};

/// A failure: what happened, in one line a user can act on. `message` names
/// the structure, the chunk ordinal and the byte offset where that applies,
/// e.g. "chunk 12 (events) at offset 40960: payload checksum mismatch".
struct Status {
  ErrorCode code = ErrorCode::Ok;
  std::string message;

  static Status ok() { return {}; }
  static Status error(ErrorCode c, std::string m) { return {c, std::move(m)}; }
  bool is_ok() const { return code == ErrorCode::Ok; }
  explicit operator bool() const { return is_ok(); }
};

/// A value or a Status. `ok()` must be checked before `value()`.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status status) : v_(std::move(status)) {}
  bool ok() const { return std::holds_alternative<T>(v_); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  const Status& status() const { return std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tvis::format
