#include "worker/worker_protocol.hpp"

#include <nlohmann/json.hpp>

#include "results/results_json.hpp"

namespace aisp {
namespace {

std::string dump_line(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string worker_phase_line(const std::string& phase) {
  return dump_line(nlohmann::json{{"type", "phase"}, {"phase", phase}});
}

std::string worker_result_line(const PairResult& result) {
  return dump_line(nlohmann::json{{"type", "result"}, {"result", to_json(result)}});
}

WorkerMessage read_worker_line(std::string_view line) {
  WorkerMessage message;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    return message;  // not a protocol line; the log has the worker's own output
  }
  if (!parsed.is_object()) {
    return message;
  }
  const std::string type = parsed.value("type", "");
  if (type == "phase") {
    message.kind = WorkerMessage::Kind::phase;
    message.phase = parsed.value("phase", "?");
  } else if (type == "result") {
    const auto found = parsed.find("result");
    if (found == parsed.end()) {
      throw ResultsFormatError("worker protocol: a result line without its \"result\" object");
    }
    message.kind = WorkerMessage::Kind::result;
    message.result = pair_result_from_json(*found);
  }
  return message;
}

}  // namespace aisp
