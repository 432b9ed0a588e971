#include "worker/worker_rank_exchange.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "worker/worker_protocol.hpp"

namespace aisp {

std::string WorkerRankExchange::read_reply_line() {
  for (;;) {
    if (const std::size_t newline = buffer_.find('\n'); newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    char chunk[4096];
    const ssize_t n = ::read(reply_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw RankExchangeError(fmt::format("rank {}: the orchestrator closed the reply channel "
                                          "(descriptor {}{}{})",
                                          rank_, reply_fd_, n < 0 ? ": " : "",
                                          n < 0 ? std::strerror(errno) : ""));
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

WorkerRankExchange::~WorkerRankExchange() {
  if (shared_ != nullptr)
    munmap(shared_, shared_bytes_);
}

void WorkerRankExchange::all_reduce_sum(float* data, std::size_t count) {
  const std::size_t bytes = count * sizeof(float);
  if (shared_fd_ < 0)
    throw RankExchangeError("no memory shared with the orchestrator for a host all-reduce");
  if (bytes > shared_bytes_) {
    if (shared_ != nullptr)
      munmap(shared_, shared_bytes_);
    shared_ = nullptr;
    shared_bytes_ = 0;
    if (ftruncate(shared_fd_, static_cast<off_t>(bytes)) != 0)
      throw RankExchangeError(fmt::format("cannot grow the shared memory to {} bytes: {}", bytes,
                                          std::strerror(errno)));
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shared_fd_, 0);
    if (mapped == MAP_FAILED)
      throw RankExchangeError(
          fmt::format("cannot map the shared memory ({} bytes): {}", bytes, std::strerror(errno)));
    shared_ = mapped;
    shared_bytes_ = bytes;
  }
  std::memcpy(shared_, data, bytes);
  channel_.host_all_reduce(count);
  const ExchangeReply reply = read_exchange_reply(read_reply_line());
  if (!reply.ok)
    throw RankExchangeError(reply.error);
  std::memcpy(data, shared_, bytes);
}

std::vector<std::string> WorkerRankExchange::all_gather(const std::string& mine) {
  channel_.exchange(mine);
  ExchangeReply reply = read_exchange_reply(read_reply_line());
  if (!reply.ok)
    throw RankExchangeError(reply.error);
  if (static_cast<int>(reply.values.size()) != size_)
    throw RankExchangeError(fmt::format("rank {}: the exchange returned {} values for {} ranks",
                                        rank_, reply.values.size(), size_));
  return std::move(reply.values);
}

}  // namespace aisp
