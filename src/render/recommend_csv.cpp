// The recommend CSV and the precision label it shares with the table and JSON
// (src/render/recommend_render.cpp).
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "render/instances_render.hpp"
#include "render/recommend_render.hpp"
#include "render/render.hpp"
#include "render/table.hpp"

namespace rightsize::cli {
using app::is_item_model;

namespace {

// CSV cells of the bill: empty where billed per GPU (shape unknown).
std::string instances_cell(const InstanceBill& bill) {
  return bill.shape_known ? std::to_string(bill.packing.instances) : std::string();
}
std::string instance_provider(const InstanceBill& bill, const GpuPrice& price) {
  const nlohmann::json j = instances_json(bill, price);
  return j["provider"].is_string() ? j["provider"].get<std::string>() : std::string();
}

} // namespace

// CSV: one row per candidate (passing, then rejected), plain numbers in the units their names say
// (same conventions as sweep's CSV: docs/output-schema.md "recommend CSV"); empty = unknown.
Table candidate_csv(const SearchInputs& in, const std::vector<Candidate>& rows) {
  Table t = csv_columns({"rank",
                         "gpu",
                         "precision",
                         "gpus_per_replica",
                         "replicas",
                         "gpus_billed",
                         "instances",
                         "gpus_per_instance",
                         "instance_provider",
                         "tp",
                         "pp",
                         "ep",
                         "attention_dp",
                         "concurrency",
                         "ttft_s",
                         "tpot_s",
                         "e2e_s",
                         "capacity_output_tokens_per_s",
                         "served_output_tokens_per_s",
                         "served_requests_per_s",
                         "concurrency_at_load",
                         "ttft_at_load_s",
                         "tpot_at_load_s",
                         "e2e_at_load_s",
                         "per_gpu_bytes",
                         "headroom_bytes",
                         "usd_per_hour",
                         "usd_per_million_output_tokens_at_load",
                         "usd_per_million_output_tokens_at_capacity",
                         "usd_per_request_at_load",
                         "bound",
                         "meets_sla",
                         "reject_reason",
                         "reason"});
  for (const Candidate& c : rows) {
    const InferenceEstimate& e = c.estimate;
    // A rejected row serves no load: its served figures are empty, not 0. A row that serves has them,
    // 0 included (an image model's tokens: JSON's 0, not unknown).
    const bool serves = c.served_requests_per_s > 0.0;
    const auto served = [serves](double v) { return serves ? csv_number(v) : std::string(); };
    t.add_row({c.rank > 0 ? std::to_string(c.rank) : "",
               in.gpus[c.gpu_index].id,
               precision_name(in, in.precisions[c.precision_index]),
               std::to_string(c.layout.gpus_per_replica()),
               std::to_string(c.replicas),
               std::to_string(e.bill.gpus_billed),
               instances_cell(e.bill),
               e.bill.shape_known ? std::to_string(e.bill.packing.largest_size) : std::string(),
               instance_provider(e.bill, in.gpu_prices[c.gpu_index]),
               std::to_string(c.layout.tp),
               std::to_string(c.layout.pp),
               std::to_string(c.layout.ep),
               std::to_string(c.layout.attention_dp),
               std::to_string(e.concurrency),
               csv_number(e.overloaded ? std::nan("") : e.ttft_s), // unbounded: empty
               csv_number(e.tpot_s),
               csv_number(e.overloaded ? std::nan("") : e.e2e_s),
               csv_number(e.capacity_output_tokens_per_s),
               served(c.served_output_tokens_per_s),
               served(c.served_requests_per_s),
               std::to_string(c.at_load.concurrency),
               csv_number(e.overloaded ? std::nan("") : c.at_load.ttft_s),
               csv_number(c.at_load.tpot_s),
               csv_number(e.overloaded ? std::nan("") : c.at_load.e2e_s),
               fmt::format("{:.0f}", e.memory.per_gpu_bytes),
               fmt::format("{:.0f}", e.memory.headroom_bytes()),
               csv_usd(e.usd_per_hour, c.price_known),
               csv_usd(c.usd_per_million_output_tokens_at_load, c.price_known && serves),
               csv_usd(e.usd_per_million_output_tokens, c.price_known),
               csv_usd(c.usd_per_request_at_load, c.price_known && serves),
               to_string(e.bound),
               c.meets_sla ? "true" : "false",
               reason_code(c.rejection.term),
               c.meets_sla ? "" : describe_rejection(c)});
  }
  return t;
}

std::string precision_name(const SearchInputs& in, const Precision& p) {
  std::string out(format_info(p.weights).name);
  if (p.activations != p.weights && format_info(p.weights).usable_for_activations) {
    out += fmt::format(" w/ {} math", format_info(p.activations).name);
  }
  const bool kv = in.models.empty() || !is_item_model(in.models.front());
  if (kv && p.kv_cache != NumberFormat::bf16) out += fmt::format(", {} KV", format_info(p.kv_cache).name);
  return out;
}

} // namespace rightsize::cli
