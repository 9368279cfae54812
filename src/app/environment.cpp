#include "app/environment.hpp"

#include "io/spec/spec_io.hpp"

namespace rightsize::app {

Spec load_spec(const std::string& path, const Environment& environment) {
  return io::load_spec(path, environment.models_dir());
}

} // namespace rightsize::app
