// `check` of a training run (issue 43 item 6): the run, its goals' verdict, what would pass or costs
// less on the same GPU type, and the gate's answer; a table or one JSON document.
#include <fmt/format.h>

#include "io/json/json_text.hpp"
#include "render/check_render.hpp"
#include "render/instances_render.hpp"
#include "render/render.hpp"
#include "render/training_render.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

// "128 × H100-SXM (TP4·PP2·DP16 ZeRO-1 mb1 selective): $175.1k per run in 30.4 h planned".
std::string run_text(const app::TrainingCheckResult& res, const TrainingCandidate& c) {
  const TrainingEstimate& e = c.estimate;
  return fmt::format("{} × {} ({}): {} per run in {} planned", e.gpus, res.in.gpus[c.gpu_index].id,
                     training_layout_label(e.layout),
                     c.price_known ? format_usd_total(e.usd_total) : "price unknown",
                     format_hours(e.time_to_train_planning_s));
}

void print_training_check_json(const Spec& spec, const app::TrainingCheckResult& res, double max_overspend) {
  nlohmann::json doc;
  doc["schema_version"] = k_output_schema_version;
  doc["spec"] = spec.name;
  doc["mode"] = "training";
  doc["deployment"] = {{"gpu", res.in.gpus.front().id},
                       {"gpus", res.current.estimate.gpus},
                       {"layout", training_layout_label(res.current.estimate.layout)},
                       {"layout_choice", res.pinned ? "pinned" : "fastest_that_fits"}};
  doc["estimate"] = training_candidate_json(res.in, res.current, res.bands);
  doc["judgement"] = verdict_json(res.verdict, res.confidence, 0);
  doc["meets_sla"] = res.meets;
  std::vector<std::string> misses;
  if (!res.meets) misses.push_back(describe_training_rejection(res.current));
  doc["misses"] = misses;
  doc["over_provisioned"] = res.over_provisioned;
  doc["max_overspend"] = max_overspend;
  const auto run_json = [&](const std::optional<TrainingCandidate>& c) {
    return c ? training_candidate_json(res.in, *c, res.option_bands) : nlohmann::json();
  };
  doc["cheaper_same_gpu"] = run_json(res.cheaper_same_gpu);
  doc["same_gpu_saving_fraction"] = round_sig(res.same_gpu_saving, 4);
  doc["would_pass"] = run_json(res.would_pass);
  doc["verdict"] = res.pass ? "pass" : "fail";
  fmt::print("{}\n", io::json_text(doc));
}

void print_training_check_table(const Spec& spec, const app::TrainingCheckResult& res, double max_overspend) {
  const TrainingEstimate& e = res.current.estimate;
  const std::string& gpu = res.in.gpus.front().id;
  fmt::print("training run: {} × {} ({}), {}\n", e.gpus, gpu, training_layout_label(e.layout),
             res.pinned ? "its pinned degrees kept"
                        : "the fastest layout that fits on that count (nothing pinned)");
  const std::string goals = training_goals_text(spec.sla);
  fmt::print("goals: {}; time and cost per run include a planning overhead factor\n",
             goals.empty() ? "none (fits)" : goals);
  if (res.verdict.feasible()) {
    fmt::print("estimate: {:.1f}% MFU, {} tok/s, {} planned ({} ideal), {}/h, {} per run\n", e.mfu * 100.0,
               format_count(e.tokens_per_s), format_hours(e.time_to_train_planning_s),
               format_hours(e.time_to_train_s), format_usd(e.usd_per_hour, res.current.price_known),
               res.current.price_known ? format_usd_total(e.usd_total) : "n/a");
    fmt::print("instances: {}\n", instances_text(e.bill, res.in.gpu_prices.front()));
  }
  if (res.meets) {
    fmt::print("meets the goals\n");
  } else {
    fmt::print("misses the goals:\n  - {}\n", describe_training_rejection(res.current));
    if (res.would_pass) {
      fmt::print("would pass: {}\n", run_text(res, *res.would_pass));
    } else {
      fmt::print("would pass: no run on {} meets them within the search limits\n", gpu);
    }
  }
  if (res.cheaper_same_gpu) {
    fmt::print("{}: {} meets them, {} less per run (threshold {:.0f}%; same GPU type)\n",
               res.over_provisioned ? "over-provisioned" : "a cheaper option",
               run_text(res, *res.cheaper_same_gpu), format_pct(res.same_gpu_saving * 100.0),
               max_overspend * 100.0);
  }
  fmt::print("verdict: {}\n", res.pass ? "pass" : "fail");
}

} // namespace

void render_training_check(const Spec& spec, const app::TrainingCheckResult& res, double max_overspend,
                           Format format) {
  if (format == Format::json) {
    print_training_check_json(spec, res, max_overspend);
  } else {
    print_training_check_table(spec, res, max_overspend);
  }
}

} // namespace rightsize::cli
