// Result<T>: a value or an Error with a one-line, user-facing message.
// Host-side libraries return these; only the CLI turns an Error into an exit status.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace callprof {

struct Error {
  std::string message;  // one line, no trailing newline, says what and where
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace callprof
