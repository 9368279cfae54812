// Safe text for every target an artifact writes (issue 41, docs/deploy.md "Safe text in every
// artifact"): what is refused as text, how a name becomes a Kubernetes name or label value, and the
// quoting of shell words, container args and PromQL strings. Worked by hand below.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "deploy_fixtures.hpp"
#include "render/emit/engine_command.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "render/emit/k8s_parts.hpp"
#include "rightsize/text.hpp"
#include <yaml-cpp/yaml.h>

using namespace rightsize;
using namespace rightsize::cli;

TEST_CASE("unsafe_text_at finds bytes that are not UTF-8, control characters and line separators", "[text]") {
  const std::size_t ok = std::string_view::npos;
  CHECK(unsafe_text_at("meta-llama/Llama-3.1-8B \xC2\xA7 \xE2\x80\x94") == ok); // §, em dash
  CHECK(unsafe_text_at("org/m\xFF") == 5);                                      // Latin-1 ÿ
  CHECK(unsafe_text_at("a\nb") == 1);                                           // C0
  CHECK(unsafe_text_at("a\x7F") == 1);                                          // DEL
  CHECK(unsafe_text_at("ab\xC2\x85") == 2);                                     // NEL U+0085 (C1)
  CHECK(unsafe_text_at("x\xE2\x80\xA8---") == 1);                               // U+2028
  CHECK(unsafe_text_at("xy\xE2\x80\xA9") == 2);                                 // U+2029
  CHECK(describe_unsafe_text("org/m\xFF", 5) == "byte 0xFF at offset 5 (not UTF-8)");
  CHECK(describe_unsafe_text("x\xE2\x80\xA8", 1) == "U+2028 (a line separator) at offset 1");
  CHECK(describe_unsafe_text("ab\xC2\x85", 2) == "U+0085 (a control character) at offset 2");
  CHECK(describe_unsafe_text("\t", 0) == "U+0009 (a control character) at offset 0");
}

TEST_CASE("safe_text keeps printable text and puts one '?' per unsafe character", "[text]") {
  CHECK(safe_text("stem\xFF") == "stem?");
  CHECK(safe_text("a\xE2\x80\xA8"
                  "b\nc") == "a?b?c");              // a three-byte separator is one '?'
  CHECK(safe_text("caf\xC3\xA9") == "caf\xC3\xA9"); // é stays
  CHECK(safe_text("\xE2\x80") == "??");             // a cut sequence: each byte
}

// Docker's reference grammar (distribution/reference): [host[:port]/]path[:tag][@digest]; the tag
// is what follows the last ':' after the last '/'.
TEST_CASE("pinned_image_reference: a tag other than latest, or a digest", "[text]") {
  CHECK(pinned_image_reference("vllm/vllm-openai:v0.11.2"));
  CHECK(pinned_image_reference("nvcr.io/nvidia/tensorrt-llm/release:1.2.0"));
  CHECK(pinned_image_reference("registry:5000/team/vllm:0.11"));
  CHECK(pinned_image_reference("vllm/vllm-openai@sha256:0123abcd"));
  CHECK(pinned_image_reference("vllm/vllm-openai:latest@sha256:0123abcd")); // the digest decides
  CHECK_FALSE(pinned_image_reference("vllm/vllm-openai"));
  CHECK_FALSE(pinned_image_reference("vllm/vllm-openai:latest"));
  CHECK_FALSE(pinned_image_reference("registry:5000/team/vllm")); // a port, not a tag
  CHECK_FALSE(pinned_image_reference("vllm:"));
}

TEST_CASE("k8s_name cuts long names with a hash of the whole name; LWS names leave room", "[deploy]") {
  // FNV-1a 32 of "x" × 100 is ac246ad5: 63 = 54 kept + "-" + 8 hex digits.
  CHECK(k8s_name(std::string(100, 'x')) == std::string(54, 'x') + "-ac246ad5");
  // The reproducer's 60-character name under the LeaderWorkerSet's 45: 36 kept, hash e63499f3.
  const std::string lws =
      k8s_name("deepseek-v3-production-chat-assistant-eu-west-1-blue-green-a", k_lws_name_max);
  CHECK(lws == "deepseek-v3-production-chat-assistan-e63499f3");
  CHECK(lws.size() == 45);
  // A short name is unchanged; two long ones with the same first 54 characters stay distinct.
  CHECK(k8s_name("Chat 8B!") == "chat-8b");
  CHECK(k8s_name(std::string(80, 'a') + "1") != k8s_name(std::string(80, 'a') + "2"));
}

TEST_CASE("k8s_label_value makes catalog ids valid label values", "[deploy]") {
  CHECK(k8s_label_value("H100-SXM") == "H100-SXM");
  CHECK(k8s_label_value("-H100") == "H100");
  CHECK(k8s_label_value("_MI300X.") == "MI300X");
  // 69 characters: 54 kept ("H100-SXM-" + 45 x), "-", FNV-1a of the whole id (3b510d84).
  CHECK(k8s_label_value("H100-SXM-" + std::string(60, 'x')) ==
        "H100-SXM-" + std::string(45, 'x') + "-3b510d84");
  CHECK(k8s_label_value("---") == "unknown");
}

TEST_CASE("PromQL strings and container args escape what their target would read", "[deploy]") {
  CHECK(k8s::promql_string("meta-llama/Llama-3.1-8B") == "\"meta-llama/Llama-3.1-8B\"");
  CHECK(k8s::promql_string("x\"} or vector(1) or up{a=\"") == "\"x\\\"} or vector(1) or up{a=\\\"\"");
  CHECK(k8s::promql_string("a\\b") == "\"a\\\\b\"");
  CHECK(pod_literal("$(SECRET)/m") == "$$(SECRET)/m");
  CHECK(pod_literal("${HOME} $x") == "${HOME} $x"); // only $( expands in args
}

TEST_CASE("a launch script expands its own variables and nothing the user typed", "[deploy]") {
  const DeployPlan two_nodes = test::multi_node_plan(8, 2);
  const EngineCommand s = engine_command(Engine::sglang, two_nodes, "${HOME}");
  const std::string script = shell_script(s, "# h\n");
  CHECK(script.find("--model-path '${HOME}'") != std::string::npos);
  CHECK(script.find("--dist-init-addr \"${LEADER_ADDR}:20000\"") != std::string::npos);
  CHECK(script.find("--node-rank \"${NODE_RANK}\"") != std::string::npos);
  // In a pod the LWS variables expand; the model path's "$(" is escaped.
  const EngineCommand pod = engine_command(Engine::sglang, two_nodes, "$(X)", Target::pod);
  std::size_t compared = 0;
  for (std::size_t i = 0; i < pod.args.size(); ++i) {
    if (pod.args[i].find("$(") == std::string::npos) continue;
    ++compared;
    CHECK(expands(pod, i) == (pod.args[i].find("LWS_") != std::string::npos));
  }
  CHECK(compared == 5); // two "$(X)" (model path, served name) and three LWS variables
}

namespace {

bool label_value_ok(const std::string& v) {
  if (v.size() > k_k8s_name_max) return false;
  if (v.empty()) return true;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return alnum(v.front()) && alnum(v.back()) && std::all_of(v.begin(), v.end(), [&](char c) {
           return alnum(c) || c == '-' || c == '_' || c == '.';
         });
}

// Every label value of a metadata.labels or nodeSelector map under `node`.
void check_label_maps(const YAML::Node& node, std::size_t& compared) {
  if (node.IsMap()) {
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      if ((key == "labels" || key == "nodeSelector" || key == "matchLabels") && item.second.IsMap()) {
        for (const auto& label : item.second) {
          INFO(label.first.as<std::string>() << ": " << label.second.as<std::string>());
          CHECK(label_value_ok(label.second.as<std::string>()));
          ++compared;
        }
      }
      check_label_maps(item.second, compared);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node)
      check_label_maps(item, compared);
  }
}

} // namespace

TEST_CASE("every k8s golden keeps the API's limits on names, label values and windows", "[deploy]") {
  namespace fs = std::filesystem;
  std::size_t manifests = 0;
  std::size_t labels_compared = 0;
  for (const auto& entry : fs::directory_iterator(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/cli")) {
    const fs::path out = entry.path() / "stdout";
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\napiVersion: ") == std::string::npos) continue;
    INFO(out.string());
    ++manifests;
    CHECK(unsafe_text_at(text.substr(0, text.find_first_of('\n'))) == std::string::npos);
    CHECK(invalid_utf8_at(text) == std::string::npos);
    for (const YAML::Node& doc : YAML::LoadAll(text)) {
      if (!doc.IsMap()) continue;
      const std::string kind = doc["kind"].as<std::string>();
      const std::string name = doc["metadata"]["name"].as<std::string>();
      CHECK(name.size() <= (kind == "LeaderWorkerSet" ? k_lws_name_max : k_k8s_name_max));
      check_label_maps(doc, labels_compared);
      const YAML::Node hpa =
          kind == "ScaledObject" ? doc["spec"]["advanced"]["horizontalPodAutoscalerConfig"] : doc["spec"];
      if (kind == "ScaledObject" || kind == "HorizontalPodAutoscaler")
        CHECK(hpa["behavior"]["scaleDown"]["stabilizationWindowSeconds"].as<int>() <= k_hpa_window_max_s);
    }
  }
  REQUIRE(manifests >= 14); // the k8s goldens under tests/cli (14 on 2026-11-28)
  REQUIRE(labels_compared > 0);
}
