// The worker → orchestrator protocol: one JSON object per line on a pipe.
//   {"type":"phase","phase":"verify"}   progress, so a hang or crash names the phase it hit
//   {"type":"progress","detail":"..."}  where the phase stands (samples against the stopping
//                                       rule), a few times a second at most, for the display
//   {"type":"result","result":{...}}    the PairResult (docs/results-schema.md), last line
//   {"type":"exchange","payload":"..."} under mpirun only: this rank's part of an all-gather
//                                       across the job's ranks (core/rank_exchange.hpp); the
//                                       orchestrator answers on the reply descriptor with
//   {"ok":true,"values":["...",...]}    every rank's payload, in rank order, or
//   {"ok":false,"error":"..."}          why not (another rank's worker has left the pair)
//   {"type":"host_all_reduce","count":N} under mpirun only: sum N floats over the ranks, in place,
//                                       in the shared memory on kWorkerSharedMemoryFd (the worker
//                                       wrote its N floats there first); answered like an exchange
//                                       ({"ok":true,"values":[]}) once the sum is there
// The worker writes lines with WorkerChannel (worker/worker_channel.hpp); the orchestrator reads
// them with read_worker_line (worker/worker_process.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

// One line each, without the newline. Invalid UTF-8 in a string (a reason quoting a crash log) is
// replaced, never thrown on.
std::string worker_phase_line(const std::string& phase);
std::string worker_progress_line(const std::string& detail);
std::string worker_result_line(const PairResult& result);
std::string worker_exchange_line(const std::string& payload);
std::string worker_host_all_reduce_line(std::size_t count);
std::string exchange_reply_line(const std::vector<std::string>& values);
std::string exchange_error_line(const std::string& error);

// A reply read back: the values, or the error (throws RankExchangeError for a malformed line).
struct ExchangeReply {
  bool ok = false;
  std::vector<std::string> values;
  std::string error;
};
ExchangeReply read_exchange_reply(std::string_view line);

struct WorkerMessage {
  enum class Kind { phase, progress, result, exchange, host_all_reduce, other };
  Kind kind = Kind::other;  // other: not a protocol line (not JSON, or no known "type")
  std::string phase;        // kind == phase ("?" when the line names none)
  std::string detail;       // kind == progress
  std::string payload;      // kind == exchange
  std::size_t count = 0;    // kind == host_all_reduce
  PairResult result;        // kind == result
};

// Reads one line (without its newline). Throws ResultsFormatError when a result line's result is
// not a PairResult this build reads.
WorkerMessage read_worker_line(std::string_view line);

}  // namespace aisp
