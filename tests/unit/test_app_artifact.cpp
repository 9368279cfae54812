// recommend --emit / check --emit decide in the application layer (src/app/deploy_artifact.hpp): which
// candidate, its deployment settings, the engine, the image, the served model and the autoscaler.
#include <string>

#include <catch2/catch.hpp>

#include "app/deploy_artifact.hpp"
#include "app/recommend.hpp"
#include "app_fixtures.hpp"
#include "engine_fixtures.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/model.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {
TEST_CASE("recommend --emit plans the artifact of the ranked candidate", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"H100-SXM", "MI300X"}, "");
  app::RecommendSettings request;
  request.artifact = app::ArtifactRequest{};
  request.artifact->kind = "k8s";
  request.artifact->engine = "sglang";
  request.artifact->image = "example/sglang:rocm"; // an AMD candidate needs one
  request.artifact->rank = 2;
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
  REQUIRE(result.recommendation.candidates.size() >= 2);
  REQUIRE(result.artifact);
  const app::ArtifactPlan& a = *result.artifact;
  const Candidate& second = result.recommendation.candidates[1];
  CHECK(a.rank == 2);
  CHECK(a.what == "rank 2");
  CHECK(a.gpu_id == in.gpus[second.gpu_index].id);
  CHECK(a.plan.tensor_parallel == second.layout.tp);
  CHECK(a.plan.gpus_per_replica == second.layout.gpus_per_replica());
  CHECK(a.k8s);
  CHECK(a.engine == app::Engine::sglang);
  CHECK(a.image == "example/sglang:rocm");
  CHECK(a.autoscaler == app::Autoscaler::keda);
  CHECK(a.model_path_defaulted);
  CHECK(a.model_path_is_hf_id); // a preset serves its checkpoint's Hugging Face id (issue 43 item 5)
  CHECK(a.model_path == "meta-llama/Llama-3.1-8B");
  CHECK(a.model_path == spec.model.hf_id);

  // A launch script runs the engine it names; no image; the served model as given.
  app::ArtifactRequest script;
  script.kind = "vllm";
  script.model_path = "meta-llama/Llama-3.1-8B-Instruct";
  script.autoscaler = "hpa";
  const app::ArtifactPlan s =
      app::plan_artifact(script, spec, in, second, result.policy, catalog.pricing, catalog.engines, 0);
  CHECK(!s.k8s);
  CHECK(s.engine == app::Engine::vllm);
  CHECK(s.image.empty());
  CHECK(s.what == "the checked deployment");
  CHECK(!s.model_path_defaulted);
  CHECK(s.model_path == script.model_path);
  CHECK(s.autoscaler == app::Autoscaler::hpa);

  // The default image follows the engine and the vendor: the release pinned in data/engines.json.
  const EngineProfiles& engines = test::shipped_engines();
  app::ArtifactRequest k8s;
  k8s.kind = "k8s";
  k8s.engine = "vllm";
  bool amd_seen = false;
  for (const Candidate& c : result.recommendation.candidates) {
    const app::ArtifactPlan p =
        app::plan_artifact(k8s, spec, in, c, result.policy, catalog.pricing, engines, 1);
    const bool amd = in.gpus[c.gpu_index].vendor == "amd";
    amd_seen = amd_seen || amd;
    CHECK(p.image == (amd ? "rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210" : "vllm/vllm-openai:v0.11.2"));
  }
  CHECK(amd_seen);
  // SGLang names no AMD image: --image is required there, and the message names the flag.
  k8s.engine = "sglang";
  for (const Candidate& c : result.recommendation.candidates) {
    if (in.gpus[c.gpu_index].vendor != "amd") continue;
    try {
      (void)app::plan_artifact(k8s, spec, in, c, result.policy, catalog.pricing, engines, 1);
      FAIL("expected a usage error naming --image");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::usage);
      CHECK(std::string(e.what()).find("names no sglang image") != std::string::npos);
    }
    break;
  }

  // A rank past the passing candidates is a usage error naming --rank.
  request.artifact->rank = static_cast<int>(result.recommendation.candidates.size()) + 1;
  CHECK_THROWS_WITH(app::run_recommend(spec, catalog, in, request), Catch::Contains("got rank"));
}

TEST_CASE("an emitted TensorRT-LLM artifact refuses a non-NVIDIA candidate", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"MI300X"}, "");
  app::RecommendSettings request;
  request.artifact = app::ArtifactRequest{};
  request.artifact->kind = "trtllm";
  try {
    (void)app::run_recommend(spec, catalog, in, request);
    FAIL("expected a usage error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()).find("TensorRT-LLM runs on NVIDIA GPUs only") != std::string::npos);
  }
}

// vLLM and SGLang quantize a bf16 checkpoint to FP8 after loading each GPU's whole shard in bf16
// (docs/deploy.md, KV dtype / quantization): the load holds the served weights per GPU × bf16 / FP8
// bytes plus the runtime, and must fit the GPU. Llama-3.1-8B: linear layers 1 byte a weight in FP8
// and 2 in bf16, embedding and LM head 2 in both, so 10 GB of FP8 weights per GPU load as
// 10 × 2·P / (P_linear + 2·P_embedding) GB of bf16 (1.769 for its 6.98 B linear and 1.05 B
// embedding parameters); with 1 GB of runtime, 18.69 GB.
TEST_CASE("online FP8 quantization refuses a load that does not fit the GPU", "[app]") {
  Spec spec = test::example_spec("chat-8b.json");
  spec.precision.weights = NumberFormat::fp8;
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"H100-SXM"}, "");
  app::RecommendSettings request;
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
  REQUIRE(!result.recommendation.candidates.empty());
  Candidate c = result.recommendation.candidates.front();
  const ParamCounts n = count_params(in.models[c.precision_index].model);
  const double embedding = static_cast<double>(n.embedding + n.lm_head);
  const double linear = static_cast<double>(n.total) - embedding;
  const double ratio = 2.0 * static_cast<double>(n.total) / (linear + 2.0 * embedding);
  CHECK(ratio == Approx(1.769).epsilon(0.001));
  c.estimate.memory.weights_bytes = 10e9;
  c.estimate.memory.overhead_bytes = 1e9;
  const double load_bytes = 10e9 * ratio + 1e9; // 18.69 GB
  app::ArtifactRequest vllm;
  vllm.kind = "vllm";
  c.estimate.memory.capacity_per_gpu_bytes = load_bytes * 1.001;
  const app::ArtifactPlan fits =
      app::plan_artifact(vllm, spec, in, c, result.policy, catalog.pricing, catalog.engines, 1);
  CHECK(fits.plan.quantize_online);
  c.estimate.memory.capacity_per_gpu_bytes = load_bytes * 0.999;
  CHECK_THROWS_WITH(app::plan_artifact(vllm, spec, in, c, result.policy, catalog.pricing, catalog.engines, 1),
                    Catch::Contains("loading holds 18.7 GB per GPU"));
  // A checkpoint the user names is theirs to choose: no load check.
  vllm.model_path = "org/Llama-3.1-8B-FP8";
  CHECK_NOTHROW(app::plan_artifact(vllm, spec, in, c, result.policy, catalog.pricing, catalog.engines, 1));
  // TensorRT-LLM serves a checkpoint as it is: the preset's bf16 one is refused for FP8.
  app::ArtifactRequest trtllm;
  trtllm.kind = "trtllm";
  CHECK_THROWS_WITH(
      app::plan_artifact(trtllm, spec, in, c, result.policy, catalog.pricing, catalog.engines, 1),
      Catch::Contains("TensorRT-LLM serves as it is"));
}

} // namespace rightsize
