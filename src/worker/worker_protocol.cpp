#include "worker/worker_protocol.hpp"

#include <nlohmann/json.hpp>

#include "core/rank_exchange.hpp"
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

std::string worker_progress_line(const std::string& detail) {
  return dump_line(nlohmann::json{{"type", "progress"}, {"detail", detail}});
}

std::string worker_result_line(const PairResult& result) {
  return dump_line(nlohmann::json{{"type", "result"}, {"result", to_json(result)}});
}

std::string worker_exchange_line(const std::string& payload) {
  return dump_line(nlohmann::json{{"type", "exchange"}, {"payload", payload}});
}

std::string worker_host_all_reduce_line(std::size_t count) {
  return dump_line(nlohmann::json{{"type", "host_all_reduce"}, {"count", count}});
}

std::string exchange_reply_line(const std::vector<std::string>& values) {
  return dump_line(nlohmann::json{{"ok", true}, {"values", values}});
}

std::string exchange_error_line(const std::string& error) {
  return dump_line(nlohmann::json{{"ok", false}, {"error", error}});
}

ExchangeReply read_exchange_reply(std::string_view line) {
  ExchangeReply reply;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(line);
    reply.ok = parsed.at("ok").get<bool>();
    if (reply.ok)
      reply.values = parsed.at("values").get<std::vector<std::string>>();
    else
      reply.error = parsed.at("error").get<std::string>();
  } catch (const nlohmann::json::exception& error) {
    throw RankExchangeError(std::string("the orchestrator's exchange reply is malformed (") +
                            error.what() + "): " + std::string(line.substr(0, 200)));
  }
  return reply;
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
  const auto type_field = parsed.find("type");
  const std::string type = type_field != parsed.end() && type_field->is_string()
                               ? type_field->get<std::string>()
                               : std::string();
  if (type == "phase") {
    message.kind = WorkerMessage::Kind::phase;
    const auto phase = parsed.find("phase");
    message.phase = phase != parsed.end() && phase->is_string() ? phase->get<std::string>() : "?";
  } else if (type == "progress") {
    const auto detail = parsed.find("detail");
    if (detail != parsed.end() && detail->is_string()) {
      message.kind = WorkerMessage::Kind::progress;
      message.detail = detail->get<std::string>();
    }
  } else if (type == "exchange") {
    const auto payload = parsed.find("payload");
    if (payload != parsed.end() && payload->is_string()) {
      message.kind = WorkerMessage::Kind::exchange;
      message.payload = payload->get<std::string>();
    }
  } else if (type == "host_all_reduce") {
    const auto count = parsed.find("count");
    if (count != parsed.end() && count->is_number_unsigned()) {
      message.kind = WorkerMessage::Kind::host_all_reduce;
      message.count = count->get<std::size_t>();
    }
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
