#pragma once
// What a Hugging Face config.json means where it is silent (docs/model-spec.md "hf_config"):
// the transformers configuration-class defaults of the families rightsize knows, and the generic
// decoder reading of a model_type it does not know. Private to rightsize_io.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json/json_reader.hpp"
#include "rightsize/model.hpp"

namespace rightsize::io {

/// Fills the keys `config` (the language model's object) leaves out with the defaults of the
/// transformers configuration class of `model_type`, as transformers does when it loads the file:
/// an absent key takes the class default, an explicit null stays null. Returns the assumption
/// line naming the class and every key filled, or "" when the type has no table or nothing was
/// missing.
std::string apply_class_defaults(const std::string& model_type, nlohmann::json& config);

/// Checks that a config of a model_type rightsize does not know can be read as a generic decoder:
/// its `architectures` (when given) name a causal LM (`...ForCausalLM`, `...LMHeadModel`, or
/// `...ForConditionalGeneration` around a `text_config`), and `r` has num_hidden_layers,
/// hidden_size, num_attention_heads, intermediate_size and vocab_size. Throws at the pointer of
/// the first missing key (or at /architectures) with what was expected; `known` lists the
/// model_types rightsize knows for the message.
void check_generic_decoder(const JsonReader& root, const JsonReader& r, const std::string& type,
                           const std::vector<std::string>& known);

/// What reading a config as a generic decoder assumed, in one line: the model_type and each
/// assumption made about `m` (MLP, norms, biases, attention windows, MoE, tying). The CLI prints it
/// once as a warning, prefixed with the config's path; validate lists it with the assumptions.
std::string generic_decoder_note(const std::string& type, const ModelSpec& m, bool tie_given);

} // namespace rightsize::io
