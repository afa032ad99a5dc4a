//===- Tuning.cpp - Measured kernel choices per problem shape -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Tuning.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

using namespace fgemm;

static constexpr const char *kFormat =
    "VARIANT M N K KERNEL (M >= 1, N >= 1, K >= 1; KERNEL the NAME of a "
    "NAME.cubin in the kernel directory)";

/// A decimal integer >= 1 that fits in 31 bits, or nullopt.
static std::optional<int64_t> parseExtent(const std::string &word) {
  if (word.empty() || word.size() > 10 ||
      word.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  int64_t value = std::strtoll(word.c_str(), nullptr, 10);
  if (value < 1 || value > 0x7fffffff)
    return std::nullopt;
  return value;
}

Expected<TunedChoices> TunedChoices::parse(const std::string &text,
                                           const std::string &source) {
  TunedChoices choices;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string where = source + ":" + std::to_string(number) + ": ";
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.erase(hash);
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string word; in >> word;)
      words.push_back(word);
    if (words.empty())
      continue;
    if (words.size() != 5)
      return Status::error(where + "expected 5 fields, got " +
                           std::to_string(words.size()) + " (" + kFormat + ")");
    std::optional<int64_t> extents[3];
    const char *names[3] = {"M", "N", "K"};
    for (int i = 0; i < 3; ++i) {
      extents[i] = parseExtent(words[size_t(i) + 1]);
      if (!extents[i])
        return Status::error(where + names[i] + " = '" + words[size_t(i) + 1] +
                             "' is not an integer in [1, 2^31-1] (" + kFormat +
                             ")");
    }
    Key key{words[0], *extents[0], *extents[1], *extents[2]};
    if (auto found = choices.table.find(key); found != choices.table.end())
      return Status::error(where + "a second entry for " + words[0] + " " +
                           words[1] + " " + words[2] + " " + words[3] +
                           " (one kernel per shape)");
    choices.table.emplace(std::move(key), words[4]);
  }
  return choices;
}

Expected<TunedChoices> TunedChoices::read(const std::string &path) {
  std::ifstream file(path);
  if (!file) {
    if (errno == ENOENT)
      return TunedChoices();
    return Status::error("cannot read '" + path + "'");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

std::string TunedChoices::serialize() const {
  std::string text = "# fgemm tuned kernel choices (fgemm-bench --autotune): "
                     "VARIANT M N K KERNEL\n";
  for (const auto &[key, kernel] : table)
    text += std::get<0>(key) + " " + std::to_string(std::get<1>(key)) + " " +
            std::to_string(std::get<2>(key)) + " " +
            std::to_string(std::get<3>(key)) + " " + kernel + "\n";
  return text;
}

Status TunedChoices::write(const std::string &path) const {
  std::ofstream file(path, std::ios::trunc);
  if (!file)
    return Status::error("cannot write '" + path + "'");
  file << serialize();
  file.close();
  if (!file)
    return Status::error("cannot write '" + path + "'");
  return Status::success();
}

const std::string *TunedChoices::find(const std::string &variant, int64_t m,
                                      int64_t n, int64_t k) const {
  auto found = table.find(Key{variant, m, n, k});
  return found == table.end() ? nullptr : &found->second;
}

void TunedChoices::set(const std::string &variant, int64_t m, int64_t n,
                       int64_t k, std::string kernel) {
  table[Key{variant, m, n, k}] = std::move(kernel);
}
