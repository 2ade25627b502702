// Result<T, E>: a value or an error, never an exception. The project's one
// "expected"-like type (C++20 has no std::expected). Success is the cheap path.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace strata {

template <class E>
struct Failure {
  E error;
};

// fail(e): the error branch of any Result<_, E>.
template <class E>
constexpr Failure<std::decay_t<E>> fail(E&& e) {
  return {std::forward<E>(e)};
}

template <class T, class E>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Failure<E> f) : v_(std::in_place_index<1>, std::move(f.error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  const E& error() const { assert(!ok()); return std::get<1>(v_); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, E> v_;
};

// Result<void, E>: success carries nothing.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(Failure<E> f) : failed_(true), error_(std::move(f.error)) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const E& error() const { assert(failed_); return error_; }

 private:
  bool failed_ = false;
  E error_{};
};

}  // namespace strata
