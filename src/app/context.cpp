#include "app/context.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "rightsize/error.hpp"
#include "rightsize/search.hpp"

namespace rightsize::app {

const Calibration* band_calibration(const LoadedCatalog& catalog) {
  return catalog.calibrated ? &catalog.calibration : nullptr;
}

void warn_unused_headroom(double headroom, const Spec& spec, Diagnostics& diagnostics) {
  if (headroom >= 0.0 && spec.mode == WorkloadMode::training)
    diagnostics.warn("--headroom: a training run has no serving load to add headroom to; it changes nothing");
}

void warn_unused_engine_flags(const EngineSetup& engine, const Spec& spec, Diagnostics& diagnostics) {
  if (spec.mode != WorkloadMode::training) return;
  const std::pair<bool, const char*> flags[] = {
      {engine.engine.has_value(), "--engine"},
      {engine.gpu_memory_utilization > 0.0, "--gpu-memory-utilization"},
      {engine.max_batched_tokens > 0, "--max-batched-tokens"},
      {engine.max_num_seqs > 0, "--max-num-seqs"},
      {engine.capacity_policy.has_value(), "--capacity-scheduler-policy"}};
  for (const auto& [given, flag] : flags)
    if (given)
      diagnostics.warn(
          fmt::format("{}: a training run has no serving engine to set; it changes nothing", flag));
}

double throughput_headroom(double requested) {
  if (requested < 0.0) return SearchPolicy{}.throughput_headroom;
  if (requested > 10.0)
    throw Error(ErrorKind::usage, "--headroom", "", fmt::format("expected 0 to 10, got {}", requested));
  return requested;
}

const ResolvedPrice& price_of(const LoadedCatalog& loaded, const Gpu& gpu) {
  const auto& gpus = loaded.catalog.gpus;
  // A GPU of the catalog by its address (a scan per call made `catalog list` quadratic: 40k GPUs
  // spent 0.3 s here, issue 22); std::less orders pointers into unrelated arrays too.
  const std::less<const Gpu*> before;
  if (!gpus.empty() && !before(&gpu, gpus.data()) && before(&gpu, gpus.data() + gpus.size())) {
    return loaded.prices[static_cast<std::size_t>(&gpu - gpus.data())];
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].id == gpu.id) return loaded.prices[i];
  }
  throw Error(ErrorKind::internal, "", "", fmt::format("GPU \"{}\" is not in the loaded catalog", gpu.id));
}

std::size_t gpu_index(const LoadedCatalog& catalog, const Gpu& gpu) {
  return static_cast<std::size_t>(&gpu - catalog.catalog.gpus.data());
}

std::int64_t price_age_days(const ResolvedPrice& price, std::int64_t today_days) {
  const auto date = parse_iso_date(price.date);
  return date ? today_days - *date : -1;
}

std::vector<double> price_margins(const LoadedCatalog& loaded, std::span<const Gpu> gpus,
                                  Confidence confidence, std::int64_t today_days) {
  std::vector<double> out;
  if (confidence == Confidence::p50) return out;
  const double spread = provider_spread(loaded.catalog.gpus, loaded.pricing == PricingModel::spot);
  out.reserve(gpus.size());
  for (const Gpu& gpu : gpus) {
    const ResolvedPrice& price = price_of(loaded, gpu);
    out.push_back(
        price_rank_margin(price, price_age_days(price, today_days), spread, !loaded.provider.empty()));
  }
  return out;
}

const Gpu& require_gpu(const io::Catalog& catalog, const std::string& id_or_alias, const std::string& source,
                       const std::string& pointer) {
  if (const Gpu* gpu = io::find_gpu(catalog, id_or_alias)) return *gpu;
  const std::string hint = did_you_mean(id_or_alias, io::gpu_ids(catalog));
  // A spec's GPU is bad input at its pointer (exit 3); a flag's a usage error (exit 2).
  throw Error(pointer.empty() ? ErrorKind::usage : ErrorKind::input, source, pointer,
              hint.empty() ? fmt::format("unknown GPU \"{}\" (see 'rightsize catalog list')", id_or_alias)
                           : fmt::format("unknown GPU \"{}\"; did you mean \"{}\"?", id_or_alias, hint));
}

std::vector<Precision> precisions_to_search(const Spec& spec, const std::string& list) {
  if (list.empty()) return {spec.precision};
  std::vector<Precision> out;
  std::vector<std::string> names;
  for (const auto& f : all_formats())
    names.emplace_back(f.name);
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::string item =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto format = parse_number_format(item);
    if (!format) {
      const std::string hint = did_you_mean(item, names);
      throw Error(ErrorKind::usage, "--precisions", "",
                  hint.empty() ? fmt::format("unknown precision \"{}\"", item)
                               : fmt::format("unknown precision \"{}\"; did you mean \"{}\"?", item, hint));
    }
    Precision p = precision_from_shorthand(*format);
    p.kv_cache = spec.precision.kv_cache;
    p.group_size = spec.precision.group_size;
    out.push_back(p);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

SearchInputs search_inputs(const Spec& spec, const LoadedCatalog& catalog,
                           const std::vector<std::string>& gpu_flags, const std::string& precision_list,
                           bool include_consumer) {
  SearchInputs in;
  std::vector<const Gpu*> chosen;
  if (!gpu_flags.empty()) {
    for (const auto& id : gpu_flags)
      chosen.push_back(&require_gpu(catalog.catalog, id, "--gpu"));
  } else if (!spec.constraints.gpus.empty()) {
    for (std::size_t i = 0; i < spec.constraints.gpus.size(); ++i) {
      chosen.push_back(&require_gpu(catalog.catalog, spec.constraints.gpus[i], spec.source,
                                    fmt::format("/constraints/gpus/{}", i)));
    }
  } else {
    // Named GPUs are the user's choice; the whole catalog leaves consumer parts out (docs/catalog.md).
    for (const auto& gpu : catalog.catalog.gpus) {
      if (searched_by_default(gpu.gpu_class, include_consumer)) {
        chosen.push_back(&gpu);
      } else {
        in.excluded_consumer.push_back(gpu.id);
      }
    }
    std::sort(in.excluded_consumer.begin(), in.excluded_consumer.end());
  }
  std::sort(chosen.begin(), chosen.end(), [](const Gpu* a, const Gpu* b) { return a->id < b->id; });
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  for (const Gpu* gpu : chosen) {
    in.gpus.push_back(*gpu);
    const ResolvedPrice& price = price_of(catalog, *gpu);
    in.prices.push_back(price);
    in.usd_per_gpu_hour.push_back(price.known ? price.usd_per_hour : 0.0);
    in.gpu_prices.push_back(gpu_price(price));
  }
  in.precisions = precisions_to_search(spec, precision_list);
  for (const auto& p : in.precisions)
    in.models.push_back(prepare_model(spec.model, p));
  return in;
}

bool is_item_model(const PreparedModel& model) {
  return model.model.kind != ModelKind::decoder;
}

void reject_attention_dp_for_training(int attention_dp) {
  if (attention_dp <= 1) return;
  throw Error(ErrorKind::usage, "--attention-dp", "",
              fmt::format("expected no --attention-dp for a training spec: attention data parallelism is "
                          "a serving layout (training replicates over the GPUs --tp, --pp and --ep leave; "
                          "got --attention-dp {})",
                          attention_dp));
}

void reject_moe_layout_on_dense(const ModelSpec& model, int ep, int attention_dp) {
  if (!moe_layout_on_dense(model, ep, attention_dp)) return;
  if (ep > 1) {
    throw Error(
        ErrorKind::usage, "--ep", "",
        fmt::format("expected no --ep for {}, a dense model: expert parallelism splits the experts of an "
                    "MoE model (got --ep {})",
                    model.name, ep));
  }
  if (attention_dp > 1) {
    throw Error(ErrorKind::usage, "--attention-dp", "",
                fmt::format("expected no --attention-dp for {}, a dense model: attention data parallelism "
                            "pairs with expert-parallel MoE layers (got --attention-dp {})",
                            model.name, attention_dp));
  }
}

void reject_ep_layout(const LayoutChoice& choice, const Gpu& gpu, const EpOrigin& origin) {
  if (choice.issue != LayoutIssue::ep_exceeds_replica && choice.issue != LayoutIssue::ep_unplaceable) return;
  const Deployment& d = choice.deployment;
  const std::string got = origin.from_spec ? fmt::format("got {}", d.ep) : fmt::format("got --ep {}", d.ep);
  std::string what;
  if (choice.issue == LayoutIssue::ep_exceeds_replica) {
    what = fmt::format("expected at most the {} GPUs of one {} replica, {}", d.gpus_per_replica(),
                       layout_label(Deployment{d.gpus, d.tp, d.pp, 1, d.attention_dp}), got);
  } else {
    what = fmt::format("expected an EP that one replica spans: its TP group (at most {} GPUs of a node) "
                       "or its attention-DP ranks ({}), {}",
                       std::max(1, gpu.gpus_per_node), origin.from_spec ? "attention_dp" : "--attention-dp",
                       got);
  }
  if (origin.from_spec) throw Error(ErrorKind::input, origin.spec_source, "/deployment/ep", what);
  throw Error(ErrorKind::usage, "--ep", "", what);
}

std::string layout_label(const Deployment& layout) {
  // Attention DP over one-GPU ranks reads "ADP8 EP8"; wider ranks "TP2·ADP4 EP8".
  std::string out =
      layout.attention_dp > 1 && layout.tp == 1 ? std::string() : fmt::format("TP{}", layout.tp);
  if (layout.attention_dp > 1) out += fmt::format("{}ADP{}", out.empty() ? "" : "·", layout.attention_dp);
  if (layout.pp > 1) out += fmt::format("·PP{}", layout.pp);
  if (layout.ep > 1) out += fmt::format(" EP{}", layout.ep);
  return out;
}

} // namespace rightsize::app
