// Did-you-mean for preset names (include/rightsize/preset_names.hpp).
#include "rightsize/preset_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

namespace rightsize {
namespace {

constexpr std::size_t k_max_suggestions = 3;
constexpr std::size_t k_max_name_length = 200; // longer is no model name: no suggestion

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
bool all_digits(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), is_digit);
}

// A token naming a release variant, a quantization or a context length, not the model.
bool is_variant(std::string_view t) {
  static constexpr std::array<std::string_view, 26> words = {
      "instruct", "it",   "hf",   "chat",  "base", "pt",      "meta",      "fp8",  "awq",
      "gptq",     "int4", "int8", "bnb",   "4bit", "8bit",    "gguf",      "fp4",  "nvfp4",
      "mxfp4",    "bf16", "fp16", "w4a16", "w8a8", "dynamic", "quantized", "mxfp6"};
  if (std::find(words.begin(), words.end(), t) != words.end()) return true;
  if (t.size() == 4 && all_digits(t)) return true; // date tags: 2407, 0324, 2507
  if (t.size() >= 2 && t.back() == 'k' && all_digits(t.substr(0, t.size() - 1))) return true; // 4k, 128k
  // Revisions "v0.1", "v0.3": a v, digits, a dot (DeepSeek's "v3" is the model's name).
  if (t.size() >= 4 && t[0] == 'v' && is_digit(t[1]) && t.find('.') != std::string_view::npos) return true;
  return false;
}

std::vector<std::string> tokens_of(std::string_view name) {
  std::string text = to_lower(name);
  if (const auto slash = text.rfind('/'); slash != std::string::npos) text = text.substr(slash + 1);
  std::vector<std::string> raw;
  std::string current;
  for (const char c : text) {
    if (c == '-' || c == '_' || c == ' ') {
      if (!current.empty()) raw.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) raw.push_back(current);
  std::vector<std::string> out;
  for (const auto& t : raw) {
    if (is_variant(t)) continue;
    // "llama3" -> "llama", "3": a run of letters followed by a version number.
    std::size_t letters = 0;
    while (letters < t.size() && is_alpha(t[letters]))
      ++letters;
    if (letters >= 3 && letters < t.size() && is_digit(t[letters])) {
      out.push_back(t.substr(0, letters));
      out.push_back(t.substr(letters));
    } else {
      out.push_back(t);
    }
  }
  return out;
}

// "3" names the point releases "3.1", "3.3" of its family.
bool token_matches(const std::string& given, const std::string& preset) {
  return given == preset || (preset.size() > given.size() && preset.compare(0, given.size(), given) == 0 &&
                             preset[given.size()] == '.' && is_digit(given.back()));
}

bool tokens_match(const std::vector<std::string>& given, const std::vector<std::string>& preset) {
  if (given.size() != preset.size() || given.empty()) return false;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (!token_matches(given[i], preset[i])) return false;
  }
  return true;
}

} // namespace

std::string preset_named(std::string_view name, const std::vector<PresetName>& presets) {
  if (name.size() > k_max_name_length) return "";
  const std::vector<std::string> given = tokens_of(name);
  if (given.empty()) return "";
  std::string found;
  for (const auto& p : presets) {
    const bool same = given == tokens_of(p.id) || (!p.hf_id.empty() && given == tokens_of(p.hf_id));
    if (!same) continue;
    if (!found.empty() && found != p.id) return ""; // two presets read the same: not one model
    found = p.id;
  }
  return found;
}

std::vector<std::string> suggest_presets(std::string_view name, const std::vector<PresetName>& presets) {
  if (name.size() > k_max_name_length) return {};
  const std::vector<std::string> given = tokens_of(name);
  std::vector<std::string> same;
  std::vector<std::string> versions;
  for (const auto& p : presets) {
    const std::vector<std::string> id = tokens_of(p.id);
    const std::vector<std::string> hf = p.hf_id.empty() ? std::vector<std::string>() : tokens_of(p.hf_id);
    if (!given.empty() && (given == id || given == hf)) {
      same.push_back(p.id);
    } else if (tokens_match(given, id) || tokens_match(given, hf)) {
      versions.push_back(p.id);
    }
  }
  std::vector<std::string> out = same.empty() ? versions : same;
  if (out.empty()) {
    std::vector<std::string> ids;
    ids.reserve(presets.size());
    for (const auto& p : presets)
      ids.push_back(p.id);
    const std::string hint = did_you_mean(name, ids);
    if (!hint.empty()) out.push_back(hint);
  }
  std::sort(out.begin(), out.end());
  if (out.size() > k_max_suggestions) out.resize(k_max_suggestions);
  return out;
}

} // namespace rightsize
