// The worker → orchestrator protocol: one JSON object per line on a pipe.
//   {"type":"phase","phase":"verify"}   progress, so a hang or crash names the phase it hit
//   {"type":"result","result":{...}}    the PairResult (docs/results-schema.md), last line
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp {

class WorkerChannel {
 public:
  explicit WorkerChannel(int fd) : fd_(fd) {}
  void phase(const std::string& name) const;
  void result(const PairResult& result) const;

 private:
  void write_line(const std::string& line) const;
  int fd_;
};

}  // namespace aisp
