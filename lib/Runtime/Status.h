//===- Status.h - Error values for the fgemm runtime ------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The runtime links no LLVM and throws no exceptions, so failures travel as
// values: `Status` (ok or a message) and `Expected<T>` (a T or a Status).
// Every CUresult goes through FGEMM_CU_CHECK, which turns a failure into a
// Status naming the call, the driver's error name and text, and file:line.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_STATUS_H
#define FGEMM_RUNTIME_STATUS_H

#include <cuda.h>

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace fgemm {

/// Success, or an error with a human-readable message. Must be inspected.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.text = std::move(message);
    return s;
  }

  bool ok() const { return !failed; }
  const std::string &message() const { return text; }

  /// Prefixes the message with `context: ` (no-op on success).
  Status withContext(const std::string &context) && {
    if (failed)
      text = context + ": " + text;
    return std::move(*this);
  }

private:
  Status() = default;
  bool failed = false;
  std::string text;
};

/// A value of type T, or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Expected {
public:
  Expected(T value) : storage(std::move(value)), state(Status::success()) {}
  Expected(Status error) : state(std::move(error)) {
    assert(!state.ok() && "Expected<T> built from a success Status");
  }

  bool ok() const { return storage.has_value(); }
  const Status &status() const { return state; }
  Status takeStatus() { return std::move(state); }

  T &operator*() {
    assert(ok());
    return *storage;
  }
  const T &operator*() const {
    assert(ok());
    return *storage;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

private:
  std::optional<T> storage;
  Status state;
};

/// The Status for a failed driver call: `call` is its source text. Uses the
/// loaded driver's cuGetErrorName/cuGetErrorString when available.
Status cuError(CUresult result, const char *call, const char *file, int line);

/// The driver's name for `result` ("CUDA_ERROR_..."), or "CUresult N" when
/// the driver is not loaded or does not know the code.
std::string cuResultName(CUresult result);

} // namespace fgemm

/// Evaluates a CUresult-returning expression; on failure returns the Status
/// from the enclosing function (which returns Status or Expected<T>).
#define FGEMM_CU_CHECK(call)                                                   \
  do {                                                                         \
    CUresult fgemmCuResult_ = (call);                                          \
    if (fgemmCuResult_ != CUDA_SUCCESS)                                        \
      return ::fgemm::cuError(fgemmCuResult_, #call, __FILE__, __LINE__);      \
  } while (false)

/// Returns the Status of a Status-returning expression when it failed.
#define FGEMM_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::fgemm::Status fgemmStatus_ = (expr);                                     \
    if (!fgemmStatus_.ok())                                                    \
      return fgemmStatus_;                                                     \
  } while (false)

#endif // FGEMM_RUNTIME_STATUS_H
