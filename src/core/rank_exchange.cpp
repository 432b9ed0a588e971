#include "core/rank_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace aisp {
namespace {

std::vector<std::string> gathered(RankExchange& exchange, const std::string& mine) {
  std::vector<std::string> all = exchange.all_gather(mine);
  if (static_cast<int>(all.size()) != exchange.size())
    throw RankExchangeError(
        fmt::format("rank exchange: {} values for a job of {} ranks", all.size(), exchange.size()));
  return all;
}

double parse_double(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw RankExchangeError(fmt::format("rank exchange: '{}' is not a number", text));
  return value;
}

}  // namespace

void RankExchange::all_reduce_sum(float* data, std::size_t count) {
  const std::string mine(reinterpret_cast<const char*>(data), count * sizeof(float));
  const std::vector<std::string> all = gathered(*this, mine);
  for (const std::string& theirs : all)
    if (theirs.size() != mine.size())
      throw RankExchangeError(fmt::format("rank exchange: a sum of {} floats met one of {}", count,
                                          theirs.size() / sizeof(float)));
  // In rank order, so every rank adds alike (two ranks: a + b, one rounding, as one process).
  for (std::size_t i = 0; i < count; ++i) {
    float sum = 0;
    std::memcpy(&sum, all.front().data() + i * sizeof(float), sizeof(float));
    for (std::size_t r = 1; r < all.size(); ++r) {
      float term = 0;
      std::memcpy(&term, all[r].data() + i * sizeof(float), sizeof(float));
      sum += term;
    }
    data[i] = sum;
  }
}

double ranks_max(RankExchange* exchange, double mine) {
  return ranks_max(exchange, std::vector<double>{mine}).front();
}

std::vector<double> ranks_max(RankExchange* exchange, const std::vector<double>& mine) {
  if (exchange == nullptr)
    return mine;
  // %a: the exact value, so each maximum is one of the ranks' own doubles, bit for bit.
  std::string text;
  for (const double value : mine) {
    char hex[64];
    std::snprintf(hex, sizeof(hex), "%a", value);
    text += (text.empty() ? "" : " ") + std::string(hex);
  }
  std::vector<double> largest = mine;
  for (const std::string& theirs : gathered(*exchange, text)) {
    std::size_t i = 0, begin = 0;
    while (begin <= theirs.size() && i < largest.size()) {
      const std::size_t end = std::min(theirs.find(' ', begin), theirs.size());
      largest[i] = std::max(largest[i], parse_double(theirs.substr(begin, end - begin)));
      ++i;
      begin = end + 1;
    }
    if (i != largest.size() || begin <= theirs.size())
      throw RankExchangeError(
          fmt::format("rank exchange: '{}' is not {} numbers", theirs, largest.size()));
  }
  return largest;
}

bool ranks_all(RankExchange* exchange, bool mine) {
  if (exchange == nullptr)
    return mine;
  const std::vector<std::string> all = gathered(*exchange, mine ? "1" : "0");
  return std::all_of(all.begin(), all.end(), [](const std::string& v) { return v == "1"; });
}

std::string ranks_root_value(RankExchange* exchange, const std::string& mine) {
  if (exchange == nullptr)
    return mine;
  return gathered(*exchange, exchange->rank() == 0 ? mine : std::string()).front();
}

std::uint64_t ranks_root_value(RankExchange* exchange, std::uint64_t mine) {
  if (exchange == nullptr)
    return mine;
  const std::string root = ranks_root_value(exchange, std::to_string(mine));
  char* end = nullptr;
  const unsigned long long value = std::strtoull(root.c_str(), &end, 10);
  if (root.empty() || end != root.c_str() + root.size())
    throw RankExchangeError(fmt::format("rank exchange: '{}' is not an integer", root));
  return value;
}

std::vector<bool> ranks_root_value(RankExchange* exchange, const std::vector<bool>& mine) {
  if (exchange == nullptr)
    return mine;
  std::string text;
  for (const bool b : mine)
    text += b ? '1' : '0';
  const std::string root = ranks_root_value(exchange, text);
  if (root.size() != mine.size())
    throw RankExchangeError(fmt::format("rank exchange: rank 0 decided for {} items, this rank "
                                        "has {}: the ranks do not run the same pair",
                                        root.size(), mine.size()));
  std::vector<bool> decided;
  for (const char c : root)
    decided.push_back(c == '1');
  return decided;
}

std::vector<std::string> ranks_gather(RankExchange* exchange, const std::string& mine) {
  if (exchange == nullptr)
    return {mine};
  return gathered(*exchange, mine);
}

}  // namespace aisp
