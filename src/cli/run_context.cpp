#include "run_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "spec_io.hpp"

namespace rightsize::cli {

void add_engine_options(CLI::App* command, EngineOptions& options) {
  command
      ->add_option(
          "--engine", options.engine,
          "serving engine profile: vllm, sglang or trtllm (default: the spec's workload.engine, else vllm)")
      ->group("Engine");
  command
      ->add_option("--gpu-memory-utilization", options.gpu_memory_utilization,
                   "fraction of GPU memory the engine may use (default 0.90, as vLLM)")
      ->group("Engine");
  command
      ->add_option("--max-batched-tokens", options.max_batched_tokens,
                   "chunked-prefill step size in tokens (default 8192)")
      ->group("Engine");
  command
      ->add_option("--max-num-seqs", options.max_num_seqs, "engine cap on in-flight sequences (default 1024)")
      ->group("Engine");
}

EngineConfig engine_config(const EngineOptions& options, std::optional<EngineKind> spec_engine) {
  EngineKind kind = spec_engine.value_or(EngineKind::vllm);
  if (!options.engine.empty()) {
    const auto parsed = parse_engine_kind(options.engine);
    if (!parsed) {
      throw Error(ErrorKind::usage, "--engine", "",
                  fmt::format("expected vllm, sglang or trtllm, got \"{}\"", options.engine));
    }
    kind = *parsed;
  }
  EngineConfig engine = engine_profile(kind);
  if (options.gpu_memory_utilization != 0.0) {
    if (!(options.gpu_memory_utilization > 0.05 && options.gpu_memory_utilization <= 1.0)) {
      throw Error(ErrorKind::usage, "--gpu-memory-utilization", "",
                  fmt::format("expected a fraction in (0.05, 1], got {}", options.gpu_memory_utilization));
    }
    engine.usable_fraction = options.gpu_memory_utilization;
  }
  if (options.max_batched_tokens != 0) {
    if (options.max_batched_tokens < 16 || options.max_batched_tokens > 10'000'000) {
      throw Error(ErrorKind::usage, "--max-batched-tokens", "",
                  fmt::format("expected 16 to 10000000 tokens, got {}", options.max_batched_tokens));
    }
    engine.max_batched_tokens = options.max_batched_tokens;
    engine.gpu_memory_tiers = false; // an explicit budget wins over SGLang's memory tiers
  }
  if (options.max_num_seqs != 0) {
    if (options.max_num_seqs < 1 || options.max_num_seqs > 1'000'000) {
      throw Error(ErrorKind::usage, "--max-num-seqs", "",
                  fmt::format("expected 1 to 1000000 sequences, got {}", options.max_num_seqs));
    }
    engine.max_num_seqs = options.max_num_seqs;
  }
  return engine;
}

std::string engine_name(const EngineOptions& options, std::optional<EngineKind> spec_engine) {
  if (!options.engine.empty())
    return to_string(*parse_engine_kind(options.engine)); // checked by engine_config
  return to_string(spec_engine.value_or(EngineKind::vllm));
}

Spec load_spec_file(const std::string& path) {
  return io::load_spec(path, data_dir() + "/models");
}

std::size_t gpu_index(const LoadedCatalog& catalog, const Gpu& gpu) {
  return static_cast<std::size_t>(&gpu - catalog.catalog.gpus.data());
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
      const std::string& id = spec.constraints.gpus[i];
      const Gpu* gpu = io::find_gpu(catalog.catalog, id);
      if (gpu == nullptr) {
        const std::string hint = did_you_mean(id, io::gpu_ids(catalog.catalog));
        throw Error(ErrorKind::input, spec.source, fmt::format("/constraints/gpus/{}", i),
                    hint.empty() ? fmt::format("unknown GPU \"{}\" (see 'rightsize catalog list')", id)
                                 : fmt::format("unknown GPU \"{}\"; did you mean \"{}\"?", id, hint));
      }
      chosen.push_back(gpu);
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

} // namespace rightsize::cli
