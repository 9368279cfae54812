// recommend --emit / check --emit decide in the application layer (src/app/deploy_artifact.hpp): which
// candidate, its deployment settings, the engine, the image, the served model and the autoscaler.
#include <string>

#include <catch2/catch.hpp>

#include "app/deploy_artifact.hpp"
#include "app/recommend.hpp"
#include "app_fixtures.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
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
  const app::ArtifactPlan s = app::plan_artifact(script, spec, in, second, result.policy, catalog.pricing, 0);
  CHECK(!s.k8s);
  CHECK(s.engine == app::Engine::vllm);
  CHECK(s.image.empty());
  CHECK(s.what == "the checked deployment");
  CHECK(!s.model_path_defaulted);
  CHECK(s.model_path == script.model_path);
  CHECK(s.autoscaler == app::Autoscaler::hpa);

  // The default image follows the engine and the vendor.
  app::ArtifactRequest k8s;
  k8s.kind = "k8s";
  k8s.engine = "vllm";
  for (const Candidate& c : result.recommendation.candidates) {
    const app::ArtifactPlan p = app::plan_artifact(k8s, spec, in, c, result.policy, catalog.pricing, 1);
    CHECK(p.image == (in.gpus[c.gpu_index].vendor == "amd" ? "rocm/vllm:latest" : "vllm/vllm-openai:latest"));
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

} // namespace rightsize
