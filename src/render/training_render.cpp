#include "render/training_render.hpp"

#include <cmath>

#include <fmt/format.h>

#include "render/instances_render.hpp"
#include "render/render.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

nlohmann::json bytes(double b) {
  return json_bytes(b);
}

} // namespace

std::string format_hours(double seconds) {
  const double hours = seconds / k_seconds_per_hour;
  if (hours >= 48.0) return fmt::format("{:.1f} days", hours / 24.0);
  if (hours >= 1.0) return fmt::format("{:.1f} h", hours);
  return fmt::format("{:.1f} min", seconds / 60.0);
}

std::string training_goals_text(const Sla& sla) {
  std::string out;
  if (sla.deadline_hours) out = fmt::format("finish within {:g} h", *sla.deadline_hours);
  if (sla.budget_usd) out += fmt::format("{}cost at most ${:g}", out.empty() ? "" : ", ", *sla.budget_usd);
  return out;
}

std::string training_layout_label(const TrainingLayout& l) {
  std::string out = fmt::format("TP{}", l.tp);
  if (l.pp > 1) out += fmt::format("·PP{}", l.pp);
  if (l.vp > 1) out += fmt::format("·VP{}", l.vp);
  out += fmt::format("·DP{}", l.dp);
  if (l.ep > 1) out += fmt::format(" EP{}", l.ep);
  if (l.cp > 1) out += fmt::format(" CP{}", l.cp);
  out += fmt::format(" ZeRO-{} mb{} {}", l.zero_stage, l.micro_batch, to_string(l.recompute));
  if (l.cpu_offload) out += " offload";
  return out;
}

namespace {

// A training estimate's memory per GPU: the states, activations, overhead and the allocator's view.
nlohmann::json training_memory_json(const TrainingEstimate& t) {
  const MemoryEstimate& m = t.memory;
  return {{"per_gpu_bytes", bytes(m.per_gpu_bytes)},
          {"capacity_per_gpu_bytes", bytes(m.capacity_per_gpu_bytes)},
          {"usable_per_gpu_bytes", bytes(m.usable_per_gpu_bytes)},
          {"weights_bytes", bytes(m.weights_bytes)},
          {"gradients_bytes", bytes(m.gradients_bytes)},
          {"optimizer_bytes", bytes(m.optimizer_bytes)},
          {"activations_bytes", bytes(m.activations_bytes)},
          {"kv_cache_bytes", 0},
          {"overhead_bytes", bytes(m.overhead_bytes)},
          {"headroom_bytes", bytes(m.headroom_bytes())},
          {"allocated_bytes", bytes(t.memory_allocated_bytes)},
          {"reserved_bytes", bytes(t.memory_reserved_bytes)},
          {"per_gpu_bytes_low", bytes(t.memory_low_bytes)},
          {"per_gpu_bytes_high", bytes(t.memory_high_bytes)},
          {"fits", m.fits}};
}

// A training estimate's layout and step figures (docs/output-schema.md "Training").
nlohmann::json training_figures_json(const TrainingEstimate& t) {
  const TrainingLayout& l = t.layout;
  return {{"layout",
           {{"tp", l.tp},
            {"pp", l.pp},
            {"dp", l.dp},
            {"ep", l.ep},
            {"cp", l.cp},
            {"vp", l.vp},
            {"zero_stage", l.zero_stage},
            {"micro_batch", l.micro_batch},
            {"recompute", to_string(l.recompute)},
            {"sequence_parallel", l.sequence_parallel},
            {"cpu_offload", l.cpu_offload}}},
          {"micro_batches", t.micro_batches},
          {"global_batch_effective", t.global_batch_effective},
          {"tokens_per_step", round_sig(t.tokens_per_step)},
          {"step_time_s", round_sig(t.step_time_s)},
          {"compute_s", round_sig(t.compute_s)},
          {"comm_exposed_s", round_sig(t.comm_exposed_s)},
          {"comm_exposed_breakdown_s",
           {{"tp", round_sig(t.tp_comm_exposed_s)},
            {"cp", round_sig(t.cp_comm_exposed_s)},
            {"ep", round_sig(t.ep_comm_exposed_s)},
            {"pp", round_sig(t.pp_comm_exposed_s)},
            {"dp", round_sig(t.dp_comm_exposed_s)}}},
          {"tp_comm_overlap", round_sig(t.tp_overlap_fraction, 4)},
          {"bubble_s", round_sig(t.bubble_s)},
          {"bubble_fraction", round_sig(t.bubble_fraction, 4)},
          {"offload_s", round_sig(t.offload_s)},
          {"tokens_per_s", round_sig(t.tokens_per_s)},
          {"tokens_per_s_per_gpu", round_sig(t.tokens_per_s_per_gpu)},
          {"model_tflops_per_gpu", round_sig(t.model_tflops_per_gpu)},
          {"mfu", round_sig(t.mfu, 4)},
          {"hfu", round_sig(t.hfu, 4)},
          {"time_to_train_s", round_sig(t.time_to_train_s)},
          {"time_to_train_planning_s", round_sig(t.time_to_train_planning_s)},
          {"gpu_hours", round_sig(t.gpu_hours)},
          {"gpu_hours_planning", round_sig(t.gpu_hours_planning)},
          {"bound", to_string(t.bound)},
          {"precision_supported", t.precision_supported},
          {"link_known", t.link_known}};
}

} // namespace

nlohmann::json training_json(const PreparedModel& pm, const std::string& gpu_id, const GpuPrice& price,
                             const TrainingEstimate& t, bool price_known) {
  using nlohmann::json;
  json doc;
  doc["model"] = {{"name", pm.model.name},
                  {"params", pm.params.total},
                  {"active_params", pm.params.active},
                  {"trainable_params", t.trainable_params}};
  doc["deployment"] = {{"gpu", gpu_id},     {"gpus", t.gpus},    {"nodes", t.nodes},  {"tp", t.layout.tp},
                       {"pp", t.layout.pp}, {"dp", t.layout.dp}, {"ep", t.layout.ep}, {"replicas", 1}};
  doc["memory"] = training_memory_json(t);
  doc["training"] = training_figures_json(t);
  json cost = {{"price_known", price_known}};
  if (price_known) {
    cost["usd_per_hour"] = round_sig(t.usd_per_hour);
    cost["usd_total"] = round_sig(t.usd_total);
    cost["usd_total_ideal"] = round_sig(t.usd_total_ideal);
  } else {
    cost["usd_per_hour"] = nullptr;
    cost["usd_total"] = nullptr;
    cost["usd_total_ideal"] = nullptr;
  }
  doc["cost"] = cost;
  doc["instances"] = instances_json(t.bill, price);
  return doc;
}

void add_training_bands(nlohmann::json& doc, const app::TrainingBands& bands) {
  doc["training"]["tokens_per_s_low"] = round_sig(bands.tokens_per_s.low);
  doc["training"]["tokens_per_s_high"] = round_sig(bands.tokens_per_s.high);
  doc["memory"]["reserved_bytes_low"] = bytes(bands.memory_reserved_bytes.low);
  doc["memory"]["reserved_bytes_high"] = bytes(bands.memory_reserved_bytes.high);
  doc["training"]["step_time_s_low"] = round_sig(bands.step_time_s.low);
  doc["training"]["step_time_s_high"] = round_sig(bands.step_time_s.high);
  doc["training"]["time_to_train_s_low"] = round_sig(bands.time_to_train_s.low);
  doc["training"]["time_to_train_s_high"] = round_sig(bands.time_to_train_s.high);
  if (doc["cost"]["price_known"].get<bool>()) {
    doc["cost"]["usd_total_low"] = round_sig(bands.usd_total.low);
    doc["cost"]["usd_total_high"] = round_sig(bands.usd_total.high);
  }
  doc["bands"] = {{"calibrated", bands.calibrated},
                  {"reach", to_string(bands.reach)},
                  {"meaning", "p10..p90 of measured/predicted on the validation set (docs/accuracy.md)"}};
}

namespace {

void print_training_assumptions(const Spec& spec) {
  if (spec.assumptions.empty()) return;
  fmt::print("\nassumptions\n");
  for (const auto& a : spec.assumptions)
    fmt::print("  - {}\n", a);
}

} // namespace

void print_training_table(const Spec& spec, const PreparedModel& pm, const Gpu& gpu,
                          const TrainingEstimate& t, const ResolvedPrice& price) {
  const TrainingWorkload& w = spec.training;
  fmt::print("{} training ({}) on {} × {} ({} node{})\n", pm.model.name, to_string(w.method), t.gpus, gpu.id,
             t.nodes, t.nodes == 1 ? "" : "s");
  fmt::print("layout {}; {} micro-batches per step, {} sequences of {} tokens per step\n",
             training_layout_label(t.layout), t.micro_batches, t.global_batch_effective, w.seq_len);
  fmt::print("params {} total, {} trainable\n\n", format_params(static_cast<double>(pm.params.total)),
             format_params(static_cast<double>(t.trainable_params)));
  const MemoryEstimate& m = t.memory;
  fmt::print("memory per GPU (GB = 1e9 bytes)\n");
  fmt::print("  {:<26}{:>10}\n", "weights", format_gb(m.weights_bytes));
  fmt::print("  {:<26}{:>10}\n", "gradients", format_gb(m.gradients_bytes));
  fmt::print("  {:<26}{:>10}\n", "optimizer states", format_gb(m.optimizer_bytes));
  fmt::print("  {:<26}{:>10}\n", "activations", format_gb(m.activations_bytes));
  fmt::print("  {:<26}{:>10}\n", "buffers and overhead", format_gb(m.overhead_bytes));
  fmt::print("  {:<26}{:>10}  reserved by the allocator {}\n", "allocated tensors",
             format_gb(t.memory_allocated_bytes), format_gb(t.memory_reserved_bytes));
  fmt::print("  {:<26}{:>10}  of {} usable: {}\n", "total", format_gb(m.per_gpu_bytes),
             format_gb(m.usable_per_gpu_bytes),
             m.fits ? fmt::format("fits, {} free", format_gb(m.headroom_bytes()))
                    : fmt::format("DOES NOT FIT, short by {}", format_gb(-m.headroom_bytes())));
  fmt::print("  {:<26}{:>10}  to {}\n\n", "  band", format_gb(t.memory_low_bytes),
             format_gb(t.memory_high_bytes));
  // A layout that does not fit cannot run: its memory verdict, no time or cost (as for serving; exit 1).
  if (!m.fits) {
    fmt::print("no time or cost: the layout does not fit (recommend searches the layouts that do)\n");
    print_training_assumptions(spec);
    return;
  }
  fmt::print("time\n");
  fmt::print("  {:<26}{:>12}\n", "step time", format_ms(t.step_time_s));
  fmt::print("  {:<26}{:>12}\n", "  compute", format_ms(t.compute_s));
  fmt::print("  {:<26}{:>12}\n", "  exposed communication", format_ms(t.comm_exposed_s));
  // Each kind of communication the layout uses, even when fully hidden (0 ms).
  const auto part = [](const char* name, double s, bool used) {
    if (used || s > 0.0) fmt::print("  {:<26}{:>12}\n", fmt::format("    {}", name), format_ms(s));
  };
  part(t.tp_overlap_fraction > 0.0 ? fmt::format("TP ({:.0f}% hidden)", t.tp_overlap_fraction * 100.0).c_str()
                                   : "TP",
       t.tp_comm_exposed_s, t.layout.tp > 1);
  part("CP ring attention", t.cp_comm_exposed_s, t.layout.cp > 1);
  part("EP all-to-all", t.ep_comm_exposed_s, t.layout.ep > 1);
  part("PP send/recv", t.pp_comm_exposed_s, t.layout.pp > 1);
  part("DP / ZeRO", t.dp_comm_exposed_s, t.layout.dp * t.layout.cp > 1);
  fmt::print("  {:<26}{:>12}\n", "  pipeline bubble",
             t.layout.pp > 1 ? fmt::format("{} ({:.1f}%)", format_ms(t.bubble_s), t.bubble_fraction * 100.0)
                             : format_ms(t.bubble_s));
  fmt::print("  {:<26}{:>12}\n", "tokens/s", format_count(t.tokens_per_s));
  fmt::print("  {:<26}{:>12}\n", "tokens/s per GPU", format_count(t.tokens_per_s_per_gpu));
  fmt::print("  {:<26}{:>12}\n", "model TFLOP/s per GPU", fmt::format("{:.0f}", t.model_tflops_per_gpu));
  fmt::print("  {:<26}{:>12}\n", "MFU", fmt::format("{:.1f}%", t.mfu * 100.0));
  fmt::print("  {:<26}{:>12}\n", "bound", to_string(t.bound));
  if (!t.link_known) {
    fmt::print("  warning: the catalog gives no link bandwidth between {} GPUs; communication is left out\n",
               gpu.id);
  }
  if (w.tokens > 0.0) {
    fmt::print("  {:<26}{:>12}\n", "time to train (ideal)", format_hours(t.time_to_train_s));
    fmt::print("  {:<26}{:>12}\n", "time to train (planning)", format_hours(t.time_to_train_planning_s));
    fmt::print("  {:<26}{:>12}\n", "GPU-hours (ideal)", format_count(t.gpu_hours));
    fmt::print("  {:<26}{:>12}\n", "GPU-hours (planning)", format_count(t.gpu_hours_planning));
  }
  fmt::print("\ncost ({}, {})\n", price.basis,
             price.known ? format_usd(price.usd_per_hour) + "/GPU-h" : "no price");
  fmt::print("  {:<26}{:>12}\n", "per hour", format_usd(t.usd_per_hour, price.known));
  fmt::print("  instances: {}\n", instances_text(t.bill, gpu_price(price)));
  if (w.tokens > 0.0) {
    fmt::print("  {:<26}{:>12}\n", "per run (planning)", price.known ? format_usd_total(t.usd_total) : "n/a");
    fmt::print("  {:<26}{:>12}\n", "per run (ideal)",
               price.known ? format_usd_total(t.usd_total_ideal) : "n/a");
  }
  print_training_assumptions(spec);
}

std::string describe_training_rejection(const TrainingCandidate& c) {
  fmt::memory_buffer out;
  append_training_rejection(out, c.rejection);
  return fmt::to_string(out);
}

} // namespace rightsize::cli
