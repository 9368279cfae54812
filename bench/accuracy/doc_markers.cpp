// Generated tables inside the docs (doc_markers.hpp).
#include "accuracy/doc_markers.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rightsize::bench::accuracy {

std::string between_markers(const std::string& path, const std::string& begin, const std::string& end,
                            const std::string& body, bool replace) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  const auto b = text.find(begin);
  const auto e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) {
    std::fprintf(stderr, "%s: markers not found\n", path.c_str());
    std::exit(1);
  }
  std::string current = text.substr(b + begin.size(), e - b - begin.size());
  if (replace) std::ofstream(path) << text.substr(0, b + begin.size()) + body + text.substr(e);
  return current;
}

} // namespace rightsize::bench::accuracy
