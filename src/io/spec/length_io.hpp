#pragma once
// Request lengths and arrival burstiness of the spec's inference workload (docs/model-spec.md
// "Length distributions", "workload.burstiness", "workload.trace").
#include <cstdint>
#include <string>

#include "io/json/json_reader.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::io {

/// A request length: a positive integer (every request has it), or an object giving its mean and
/// spread ({"mean", "p50", "p99"}, or a named "distribution": "lognormal" with "mean" and "sigma",
/// "exponential" with "mean", "uniform" with "min" and "max"). Returns the mean in tokens (rounded,
/// at least 1) and fills `spread`; `max_tokens` bounds every length.
std::int64_t read_length(const JsonReader& value, LengthSpread& spread, std::int64_t max_tokens);

/// workload.burstiness: the gamma shape of the inter-arrival times (vLLM's `--burstiness`; 1 =
/// Poisson, below 1 burstier), returned as their coefficient of variation 1/√shape.
double read_burstiness(const JsonReader& value);

/// What a request trace gives (trace_io.cpp): arrivals and lengths.
struct TraceSummary {
  std::string format; ///< "Azure LLM inference CSV" or "Mooncake JSONL"
  std::int64_t requests = 0;
  double span_s = 0.0;     ///< first to last arrival
  double rate_per_s = 0.0; ///< (requests − 1) / span
  double arrival_cv = 0.0; ///< of the gaps between arrivals
  std::int64_t input_mean = 0, output_mean = 0;
  LengthSpread input, output;    ///< empirical p50 and p99 (nearest rank)
  std::int64_t zero_outputs = 0; ///< rows with no generated token, counted as 1
};

/// Reads a request trace: the Azure LLM inference trace CSV (TIMESTAMP,ContextTokens,
/// GeneratedTokens) or the Mooncake JSONL (timestamp in ms, input_length, output_length),
/// recognised by content. Errors name `path` and the line.
TraceSummary read_trace(const std::string& path, std::int64_t max_tokens);

} // namespace rightsize::io
