#pragma once
// The attention kernel an image (DiT) pipeline runs in (docs/methodology.md §3.7 "Time"). Pure.
#include <string>

namespace rightsize {

/// The share of the GPU's 16-bit tensor peak that a DiT pipeline's attention kernel reaches:
/// diffusers calls torch SDPA, whose flash backend is FlashAttention-2. FlashAttention-2 reaches
/// 35 % of peak on Hopper ([FA3] abstract) and at most 73 % on the A100 ([FA2] abstract: 50–73 %);
/// the lowest published figure (0.35) for architectures without one, so an unmeasured GPU never
/// runs it faster than a measured one. The estimator runs a DiT's attention at
/// min(η_f, this) of peak.
double dit_attention_utilization(const std::string& architecture);

} // namespace rightsize
