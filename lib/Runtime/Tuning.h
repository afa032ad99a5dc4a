//===- Tuning.h - Measured kernel choices per problem shape -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The configuration choice is a model fitted to measurements; where a user
// has timed the candidates of a shape (fgemm-bench --autotune), the winner
// is recorded in a kernel directory's fgemm-tuning.txt and the runtime takes
// it over the model for exactly that shape. One entry per line:
//
//   # comment
//   VARIANT M N K KERNEL
//
// VARIANT is the kernels' variant (`dense`, `dense_1d1d`, ...), KERNEL the
// NAME of a NAME.cubin + NAME.meta pair in the same directory.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_TUNING_H
#define FGEMM_RUNTIME_TUNING_H

#include "Runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace fgemm {

/// The file in a kernel directory that DenseGemm::create reads.
inline constexpr const char *kTuningFileName = "fgemm-tuning.txt";

class TunedChoices {
public:
  using Key = std::tuple<std::string, int64_t, int64_t, int64_t>;

  /// Parses the text of a tuning file; errors name `source`, the line and
  /// what is allowed.
  static Expected<TunedChoices> parse(const std::string &text,
                                      const std::string &source);
  /// Reads `path`; a file that does not exist is no entries.
  static Expected<TunedChoices> read(const std::string &path);
  /// The file's text: a header comment, then the entries in key order.
  std::string serialize() const;
  /// Writes serialize() to `path` (replacing it).
  Status write(const std::string &path) const;

  /// The kernel recorded for (variant, M, N, K), or nullptr.
  const std::string *find(const std::string &variant, int64_t m, int64_t n,
                          int64_t k) const;
  void set(const std::string &variant, int64_t m, int64_t n, int64_t k,
           std::string kernel);
  const std::map<Key, std::string> &entries() const { return table; }

private:
  std::map<Key, std::string> table;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_TUNING_H
