// Disaggregated prefill/decode deployments in the CLI (methodology §3.6): estimate, check and the
// recommend section. Thin: the figures come from core::estimate_disagg, the verdict from core::judge.
#include "render/disagg_render.hpp"

#include <fmt/format.h>

#include "io/json/json_text.hpp"
#include "render/instances_render.hpp"
#include "render/render.hpp"
#include "render/table.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

// "N × GPU" means N GPUs everywhere else: a pool names its workers and their GPUs apart.
std::string pool_label(const PoolDeployment& p) {
  const int gpus = p.workers * p.layout.gpus_per_replica();
  return fmt::format("{} worker{} × {} {} ({} GPU{})", p.workers, p.workers == 1 ? "" : "s", p.gpu->id,
                     layout_label(p.layout), gpus, gpus == 1 ? "" : "s");
}

std::string link_label(const KvLink& link, const Gpu& gpu) {
  if (link.gb_per_s <= 0.0) return "unknown link";
  const std::string name = link.kind == LinkKind::scaleup ? link_name(gpu, LinkKind::scaleup) : "RDMA (NIC)";
  return fmt::format("{}, {} lane{} × {:g} GB/s", name, link.lanes, link.lanes == 1 ? "" : "s",
                     link.gb_per_s);
}

nlohmann::json pool_json(const PoolDeployment& p) {
  return {{"gpu", p.gpu->id},  {"workers", p.workers},
          {"tp", p.layout.tp}, {"pp", p.layout.pp},
          {"ep", p.layout.ep}, {"attention_dp", p.layout.attention_dp},
          {"gpus", p.gpus()},  {"usd_per_gpu_hour", round_sig(p.price.usd_per_gpu_hour)}};
}

// Each pool's whole instances (bill_disagg), as JSON and as the `instances:` line.
nlohmann::json bill_json(const DisaggDeployment& unit, const DisaggBill& bill) {
  return {{"prefill", instances_json(bill.prefill, unit.prefill.price)},
          {"decode", instances_json(bill.decode, unit.decode.price)}};
}

std::string bill_text(const DisaggDeployment& unit, const DisaggBill& bill) {
  return fmt::format("prefill pool {}; decode pool {}", instances_text(bill.prefill, unit.prefill.price),
                     instances_text(bill.decode, unit.decode.price));
}

nlohmann::json memory_json(const MemoryEstimate& m) {
  return {{"weights_bytes", json_bytes(m.weights_bytes)},
          {"kv_cache_bytes", json_bytes(m.kv_cache_bytes)},
          {"per_gpu_bytes", json_bytes(m.per_gpu_bytes)},
          {"usable_per_gpu_bytes", json_bytes(m.usable_per_gpu_bytes)},
          {"fits", m.fits}};
}

// Per-pool figures of one estimate (docs/output-schema.md "Disaggregated").
nlohmann::json estimate_pools_json(const DisaggDeployment& dep, const DisaggEstimate& e) {
  nlohmann::json doc;
  doc["prefill_pool"] = pool_json(dep.prefill);
  doc["prefill_pool"]["memory"] = memory_json(e.prefill.memory);
  // The parts add up to the mean TTFT: the prefill part is the loaded worker's batched step
  // (prefill_prompts_per_step prompts), the one a prompt waits out; an overloaded pool's waits are
  // unbounded (null, never the core's finite stand-in).
  const auto wait_ms = [&e](double s) {
    return e.combined.overloaded ? nlohmann::json() : nlohmann::json(round_sig(s * 1e3));
  };
  doc["prefill_pool"]["ttft_parts_ms"] = {
      {"fixed", round_sig(e.ttft_fixed_s * 1e3)},     {"handoff", round_sig(e.handoff_s * 1e3)},
      {"queue_wait", wait_ms(e.prefill_wait_s)},      {"client_wait", wait_ms(e.client_wait_s)},
      {"prefill", round_sig(e.prefill_step_s * 1e3)}, {"kv_transfer", round_sig(e.kv_transfer_s * 1e3)}};
  doc["prefill_pool"]["prompts_per_step"] = round_sig(e.prefill_prompts_per_step, 4);
  doc["prefill_pool"]["prefill_one_prompt_idle_ms"] = round_sig(e.prefill_service_s * 1e3);
  doc["prefill_pool"]["utilization"] = round_sig(e.prefill_utilization, 4);
  doc["prefill_pool"]["kv_transfer"] = {{"bytes", json_bytes(e.kv_bytes)},
                                        {"link", e.link.kind == LinkKind::scaleup ? "scaleup" : "network"},
                                        {"lanes", e.link.lanes},
                                        {"gb_per_s_per_lane", round_sig(e.link.gb_per_s)}};
  doc["decode_pool"] = pool_json(dep.decode);
  doc["decode_pool"]["memory"] = memory_json(e.decode.memory);
  doc["decode_pool"]["batch_per_worker"] = round_sig(e.decode_batch);
  doc["decode_pool"]["kv_capacity_sequences_per_worker"] = e.decode.max_concurrency;
  doc["decode_pool"]["tpot_ms"] = round_sig(e.combined.tpot_s * 1e3);
  return doc;
}

nlohmann::json figures_json(const InferenceEstimate& c) {
  // An overloaded open loop's waits are unbounded (null, not the core's finite stand-ins); it serves
  // its capacity.
  const auto bounded = [&c](double v) {
    return c.overloaded ? nlohmann::json() : nlohmann::json(round_sig(v));
  };
  return {{"concurrency", c.concurrency},
          {"overloaded", c.overloaded},
          {"ttft_ms", bounded(c.ttft_s * 1e3)},
          {"tpot_ms", round_sig(c.tpot_s * 1e3)},
          {"e2e_ms", bounded(c.e2e_s * 1e3)},
          {"ttft_p99_ms", bounded(c.ttft.p99_s * 1e3)},
          {"requests_per_s", round_sig(c.requests_per_s)},
          {"output_tokens_per_s", round_sig(c.output_tokens_per_s)},
          {"capacity_requests_per_s", c.capacity_requests_per_s > 0.0
                                          ? nlohmann::json(round_sig(c.capacity_requests_per_s))
                                          : nlohmann::json()}};
}

std::string unit_label(const DisaggCandidate& c) {
  return fmt::format("{}P{}D: prefill {}, decode {}", c.unit.prefill.workers, c.unit.decode.workers,
                     pool_label(c.unit.prefill), pool_label(c.unit.decode));
}

std::string aggregated_label(const SearchInputs& in, const Candidate& c) {
  return fmt::format("{} {} × {} replica{}", in.gpus[c.gpu_index].id, layout_label(c.layout), c.replicas,
                     c.replicas == 1 ? "" : "s");
}

nlohmann::json disagg_candidate_json(const DisaggCandidate& c) {
  nlohmann::json j = estimate_pools_json(c.unit, c.estimate);
  j["label"] = fmt::format("{}P{}D", c.unit.prefill.workers, c.unit.decode.workers);
  j["copies"] = c.copies;
  j["gpus"] = c.total_gpus();
  j["gpus_billed"] = c.bill.prefill.gpus_billed + c.bill.decode.gpus_billed;
  j["instances"] = bill_json(c.unit, c.bill);
  j["meets_sla"] = c.meets_sla;
  j["inference"] = figures_json(c.whole);
  j["usd_per_hour"] = c.price_known ? nlohmann::json(round_sig(c.whole.usd_per_hour)) : nlohmann::json();
  j["usd_per_million_output_tokens_at_load"] =
      c.price_known && c.meets_sla ? nlohmann::json(round_sig(c.usd_per_million_output_tokens_at_load))
                                   : nlohmann::json();
  j["prefill_utilization_at_load"] =
      c.meets_sla ? nlohmann::json(round_sig(c.prefill_utilization_at_load, 4)) : nlohmann::json();
  if (!c.meets_sla) j["reason"] = describe_rejection(c.verdict.first, c.whole.concurrency);
  return j;
}

// Which of the best aggregated and the best disaggregated deployment is cheaper per 1M output
// tokens at the load, and the figures that say why (methodology §3.6 "When disaggregation pays").
std::string verdict_line(const SearchInputs& in, const app::RecommendResult& result) {
  const DisaggRecommendation& r = *result.disagg;
  const app::DisaggComparison& cmp = *result.disagg_comparison;
  const Candidate* a = cmp.aggregated ? &result.recommendation.candidates[*cmp.aggregated] : nullptr;
  const DisaggCandidate* d = cmp.disaggregated ? &r.candidates.front() : nullptr;
  if (a == nullptr && d == nullptr)
    return "neither an aggregated nor a disaggregated deployment meets the SLA";
  if (a == nullptr) {
    return fmt::format("winner: disaggregated {} at {}/1M output tokens: the only kind meeting the SLA "
                       "(TPOT {} with no prefill in the decode steps)",
                       unit_label(*d), format_usd(d->usd_per_million_output_tokens_at_load, d->price_known),
                       format_ms(d->whole.tpot_s));
  }
  if (d == nullptr) {
    return fmt::format(
        "winner: aggregated {} at {}/1M output tokens: no disaggregated unit in the grid meets "
        "the SLA",
        aggregated_label(in, *a), format_usd(a->usd_per_million_output_tokens_at_load, a->price_known));
  }
  const double ca = a->usd_per_million_output_tokens_at_load, cd = d->usd_per_million_output_tokens_at_load;
  if (cmp.disaggregated_wins) {
    return fmt::format(
        "winner: disaggregated {} at {}/1M output tokens, {:.0f} % below the best aggregated ({}, {}): "
        "cheapest "
        "meeting the SLA; its decode steps carry no prefill, so within the TPOT target a decode GPU holds "
        "{:.1f} sequences vs {:.1f} aggregated (TPOT {} vs {})",
        unit_label(*d), format_usd(cd, d->price_known), cmp.pct_below, aggregated_label(in, *a),
        format_usd(ca, a->price_known), d->estimate.decode_batch / d->unit.decode.layout.gpus_per_replica(),
        static_cast<double>(a->estimate.concurrency) / a->layout.gpus_per_replica(),
        format_ms(d->whole.tpot_s), format_ms(a->estimate.tpot_s));
  }
  return fmt::format(
      "winner: aggregated {} at {}/1M output tokens, {:.0f} % below the best disaggregated ({}, {}): "
      "cheapest meeting the SLA; the disaggregated deployment takes {} GPUs for this load against {} "
      "aggregated, its prefill pool busy {:.0f} % of the time at the served load (TPOT {} aggregated vs {} "
      "disaggregated)",
      aggregated_label(in, *a), format_usd(ca, a->price_known), cmp.pct_below, unit_label(*d),
      format_usd(cd, d->price_known), d->total_gpus(), a->total_gpus(),
      d->prefill_utilization_at_load * 100.0, format_ms(a->estimate.tpot_s), format_ms(d->whole.tpot_s));
}

} // namespace

nlohmann::json disagg_search_json(const SearchInputs& in, const app::RecommendResult& result) {
  const DisaggRecommendation& r = *result.disagg;
  nlohmann::json doc;
  doc["candidates_evaluated"] = r.evaluated;
  doc["candidates_passing"] = r.passing;
  doc["candidates"] = nlohmann::json::array();
  for (const DisaggCandidate& c : result.disagg_rows->shown)
    doc["candidates"].push_back(disagg_candidate_json(c));
  doc["rejected"] = nlohmann::json::array();
  for (const DisaggCandidate& c : result.disagg_rows->closest_misses)
    doc["rejected"].push_back(disagg_candidate_json(c));
  doc["why"] = verdict_line(in, result);
  return doc;
}

void print_disagg_search(const SearchInputs& in, const app::RecommendResult& result, bool markdown) {
  const DisaggRecommendation& r = *result.disagg;
  fmt::print(
      "\n{}disaggregated prefill/decode (xPyD, methodology §3.6): {} units searched, {} meet the SLA\n\n",
      markdown ? "## " : "", r.evaluated, r.passing);
  const bool any = !result.disagg_rows->shown.empty();
  const std::vector<DisaggCandidate>& rows = result.disagg_rows->table_rows();
  const std::size_t shown = rows.size();
  const auto billed = [](const DisaggCandidate& c) {
    return c.bill.prefill.gpus_billed + c.bill.decode.gpus_billed;
  };
  // The "billed" column appears when whole instances bill more GPUs than a shown row uses (as aggregated).
  bool billed_column = false;
  for (std::size_t i = 0; i < shown; ++i)
    billed_column = billed_column || billed(rows[i]) != rows[i].total_gpus();
  std::vector<Column> columns = {{"rank", Align::right},        {"xPyD", Align::left},
                                 {"prefill pool", Align::left}, {"decode pool", Align::left},
                                 {"copies", Align::right},      {"GPUs", Align::right}};
  if (billed_column) columns.push_back({"billed", Align::right});
  for (const char* h : {"TTFT", "KV xfer", "TPOT", "batch/dec", "$/1M served"})
    columns.push_back({h, Align::right});
  Table t(std::move(columns));
  for (std::size_t i = 0; i < shown; ++i) {
    const DisaggCandidate& c = rows[i];
    std::vector<std::string> cells = {
        any ? std::to_string(i + 1) : "-",
        fmt::format("{}P{}D", c.unit.prefill.workers, c.unit.decode.workers),
        fmt::format("{} {}", c.unit.prefill.gpu->id, layout_label(c.unit.prefill.layout)),
        fmt::format("{} {}", c.unit.decode.gpu->id, layout_label(c.unit.decode.layout)),
        std::to_string(c.copies),
        std::to_string(c.total_gpus())};
    if (billed_column) cells.push_back(std::to_string(billed(c)));
    for (const std::string& cell :
         {format_ms(c.whole.ttft_s), format_ms(c.estimate.kv_transfer_s), format_ms(c.whole.tpot_s),
          fmt::format("{:.0f}", c.estimate.decode_batch),
          c.meets_sla ? format_usd(c.usd_per_million_output_tokens_at_load, c.price_known)
                      : describe_rejection(c.verdict.first, c.whole.concurrency)})
      cells.push_back(cell);
    t.add_row(std::move(cells));
  }
  if (!rows.empty()) {
    if (!any) fmt::print("closest misses:\n");
    fmt::print("{}", t.render(markdown ? TableStyle::markdown : TableStyle::text, 160));
  }
  if (any) {
    const DisaggCandidate& best = r.candidates.front();
    fmt::print("\ninstances (rank 1, {} cop{}): {}\n", best.copies, best.copies == 1 ? "y" : "ies",
               bill_text(best.unit, best.bill));
  }
  fmt::print("\n{}\n", verdict_line(in, result));
}

namespace {

// The JSON document of a disaggregated deployment (docs/output-schema.md "Disaggregated").
nlohmann::json disagg_json(const Spec& spec, const app::DisaggDeploymentResult& res, Confidence confidence,
                           bool gate, const std::string& engine_label) {
  const DisaggDeployment& dep = res.deployment;
  const DisaggEstimate& e = res.estimate;
  const Verdict& verdict = res.verdict;
  const bool price_known = res.price_known;
  const InferenceEstimate& c = e.combined;
  nlohmann::json doc;
  doc["schema_version"] = k_output_schema_version;
  doc["spec"] = spec.name;
  doc["mode"] = "disaggregated";
  doc["engine"] = engine_label;
  doc.update(estimate_pools_json(dep, e));
  doc["inference"] = verdict.feasible() ? figures_json(c) : nlohmann::json();
  doc["cost"] = {
      {"usd_per_hour", price_known ? nlohmann::json(round_sig(c.usd_per_hour)) : nlohmann::json()},
      {"usd_per_million_output_tokens", price_known && verdict.feasible()
                                            ? nlohmann::json(round_sig(c.usd_per_million_output_tokens))
                                            : nlohmann::json()}};
  add_cost_at_load(doc["cost"], verdict.feasible() ? res.at_load : CostAtLoad{}, price_known);
  doc["instances"] = bill_json(dep, e.bill);
  doc["judgement"] = verdict_json(verdict, confidence, c.concurrency);
  if (gate) doc["verdict"] = verdict.passes() ? "pass" : "fail";
  doc["assumptions"] = assumptions_json(res.assumptions);
  return doc;
}

// The prefill pool's lines: memory, then (feasible only) fixed time, handoff, queue wait, step,
// KV transfer and TTFT. Overloaded: the queue grows without end, so no wait or TTFT stands.
void print_prefill_pool(const app::DisaggDeploymentResult& res) {
  const DisaggDeployment& dep = res.deployment;
  const DisaggEstimate& e = res.estimate;
  const InferenceEstimate& c = e.combined;
  const bool show = res.verdict.feasible(); // no performance or cost figures when infeasible
  const auto wait_text = [&c](double s) { return format_wait(c, s); };
  fmt::print("\nprefill pool: {}\n", pool_label(dep.prefill));
  fmt::print("  {:<28}{:>12} of {} usable{}\n", "memory per GPU", format_gb(e.prefill.memory.per_gpu_bytes),
             format_gb(e.prefill.memory.usable_per_gpu_bytes), e.prefill.memory.fits ? "" : "  DOES NOT FIT");
  if (show) fmt::print("  {:<28}{:>12}\n", "fixed (HTTP, scheduling)", format_ms(e.ttft_fixed_s));
  if (show) fmt::print("  {:<28}{:>12}\n", "prefill-to-decode handoff", format_ms(e.handoff_s));
  if (show)
    fmt::print("  {:<28}{:>12}  (utilization {:.0f} %)\n", "queue wait",
               wait_text(e.prefill_wait_s + e.client_wait_s), e.prefill_utilization * 100.0);
  if (show) {
    // The step a prompt waits out, as the TTFT adds it up; the idle one-prompt time beside it.
    fmt::print("  {:<28}{:>12}  ({:.1f} prompt{} per step; one prompt, idle: {})\n", "prefill step",
               format_ms(e.prefill_step_s), e.prefill_prompts_per_step,
               e.prefill_prompts_per_step == 1.0 ? "" : "s", format_ms(e.prefill_service_s));
  }
  if (show)
    fmt::print("  {:<28}{:>12}  ({} over {})\n", "KV transfer", format_ms(e.kv_transfer_s),
               format_gb(e.kv_bytes), link_label(e.link, *dep.prefill.gpu));
  if (show) fmt::print("  {:<28}{:>12}\n", "TTFT (mean)", wait_text(c.ttft_s));
}

// The decode pool's lines: memory, KV capacity, then (feasible only) batch and TPOT.
void print_decode_pool(const app::DisaggDeploymentResult& res) {
  const DisaggDeployment& dep = res.deployment;
  const DisaggEstimate& e = res.estimate;
  const InferenceEstimate& c = e.combined;
  const bool show = res.verdict.feasible();
  fmt::print("\ndecode pool: {}\n", pool_label(dep.decode));
  fmt::print("  {:<28}{:>12} of {} usable{}\n", "memory per GPU", format_gb(e.decode.memory.per_gpu_bytes),
             format_gb(e.decode.memory.usable_per_gpu_bytes), e.decode.memory.fits ? "" : "  DOES NOT FIT");
  fmt::print("  {:<28}{:>12}\n", "KV capacity per worker", fmt::format("{} seq", e.decode.max_concurrency));
  if (show) fmt::print("  {:<28}{:>12}\n", "batch per worker", fmt::format("{:.1f} seq", e.decode_batch));
  if (show)
    fmt::print("  {:<28}{:>12}  (no prefill in the decode steps)\n", "TPOT (mean)", format_ms(c.tpot_s));
  if (c.overloaded && show) {
    fmt::print("  warning: the arrival rate exceeds what the pools serve (the queue grows without bound)\n");
  }
  if (c.clients_exceed_kv) {
    fmt::print("  note: the clients exceed the decode pool's KV slots ({} per worker): the rest wait\n",
               e.decode.max_concurrency);
  }
}

} // namespace

void render_disagg_deployment(const Spec& spec, const app::DisaggDeploymentResult& res, Confidence confidence,
                              Format format, bool gate, const std::string& engine_label) {
  const DisaggDeployment& dep = res.deployment;
  const DisaggEstimate& e = res.estimate;
  const InferenceWorkload& w = res.workload;
  const Verdict& verdict = res.verdict;
  const bool price_known = res.price_known;
  const InferenceEstimate& c = e.combined;
  if (format == Format::json) {
    fmt::print("{}\n", io::json_text(disagg_json(spec, res, confidence, gate, engine_label)));
    return;
  }
  fmt::print("deployment: disaggregated {}P{}D, {} GPUs (methodology §3.6)\n", dep.prefill.workers,
             dep.decode.workers, dep.prefill.gpus() + dep.decode.gpus());
  if (c.open_loop) {
    fmt::print("workload: {} in / {} out, {} arrivals at {:g} req/s ({:.0f} in flight), engine {}\n",
               w.input_tokens, w.output_tokens, to_string(w.arrival), w.request_rate_per_s, c.in_flight,
               engine_label);
  } else {
    fmt::print("workload: {} in / {} out, {} clients ({}), engine {}\n", w.input_tokens, w.output_tokens,
               c.concurrency, w.concurrency == 0 ? "auto" : "closed loop", engine_label);
  }
  const bool show = verdict.feasible(); // no performance or cost figures when infeasible
  const auto wait_text = [&c](double s) { return format_wait(c, s); };
  print_prefill_pool(res);
  print_decode_pool(res);
  if (show) fmt::print("\n  {:<28}{:>12}\n", "end-to-end (mean)", wait_text(c.e2e_s));
  if (show) {
    // Overloaded: it serves its capacity, below the arrivals (the rest queue).
    fmt::print("  {:<28}{:>12}{}\n", "throughput", fmt::format("{:.2f} req/s", c.requests_per_s),
               c.overloaded
                   ? fmt::format("  (its capacity, below the {:g} req/s arrivals)", w.request_rate_per_s)
                   : std::string());
    fmt::print("  {:<28}{:>12}\n", "output tokens", fmt::format("{:.0f} tok/s", c.output_tokens_per_s));
    if (c.open_loop && c.capacity_requests_per_s > 0.0) {
      fmt::print("  {:<28}{:>12}\n", "capacity", fmt::format("{:.2f} req/s", c.capacity_requests_per_s));
    }
  }
  fmt::print("  {:<28}{:>12}\n", "cost per hour", format_usd(c.usd_per_hour, price_known));
  fmt::print("  instances: {}\n", bill_text(dep, e.bill));
  if (show) {
    // The same two figures as an aggregated estimate; recommend --disagg ranks by the one at load.
    for (const CostLine& line : cost_per_million_lines(c, res.at_load, price_known))
      fmt::print("  {:<28}{:>12}{}{}\n", line.label, line.value, line.note.empty() ? "" : "  ", line.note);
  }
  if (!verdict.feasible()) {
    fmt::print("\nnot feasible: {}\n", describe_rejection(verdict.first, c.concurrency));
  } else if (verdict.term_count > 0) {
    fmt::print("\nSLA (--confidence {}): {}\n", to_string(confidence), verdict.passes() ? "met" : "missed");
    for (std::size_t i = 0; i < verdict.term_count; ++i)
      fmt::print("  {} {}\n", verdict.terms[i].met ? "ok  " : "MISS", describe_term(verdict.terms[i]));
  }
  if (gate) fmt::print("verdict: {}\n", verdict.passes() ? "pass" : "fail");
  if (!res.assumptions.empty()) {
    fmt::print("\nassumptions\n");
    for (const auto& a : res.assumptions)
      fmt::print("  - {}\n", a);
  }
}

} // namespace rightsize::cli
