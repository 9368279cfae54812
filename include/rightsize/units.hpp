#pragma once
// Unit constants. Every quantity in rightsize carries its unit in its name (`_bytes`, `_gb_per_s`,
// `_tflops`, `_usd_per_hour`, `_s`). GB is 1e9 bytes, GiB is 2^30 bytes: never mix them silently.

namespace rightsize {

inline constexpr double k_bytes_per_gb = 1e9;           ///< decimal gigabyte (datasheets)
inline constexpr double k_bytes_per_gib = 1073741824.0; ///< binary gibibyte (CUDA, nvidia-smi)
inline constexpr double k_bytes_per_mib = 1048576.0;    ///< binary mebibyte
inline constexpr double k_flops_per_tflop = 1e12;       ///< FLOP/s in one TFLOP/s
inline constexpr double k_seconds_per_hour = 3600.0;    ///< seconds in an hour
inline constexpr double k_hours_per_year = 8760.0;      ///< hours in a 365-day year

/// Converts decimal gigabytes per second to bytes per second.
constexpr double gb_per_s_to_bytes_per_s(double gb_per_s) {
  return gb_per_s * k_bytes_per_gb;
}

} // namespace rightsize
