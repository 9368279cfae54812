#pragma once
// Imports one Hugging Face config.json fixture from tests/io/hf/ (shared by the HF-import tests).
#include <string>
#include <vector>

#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/model.hpp"

namespace rightsize::test {

struct Imported {
  ModelSpec model;
  Precision precision;
  std::vector<std::string> assumptions;
};

inline Imported import_hf(const std::string& file) {
  const std::string path = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/io/hf/" + file;
  Imported out;
  out.model = io::import_hf_config(io::read_json_file(path), path, out.precision, out.assumptions);
  return out;
}

} // namespace rightsize::test
