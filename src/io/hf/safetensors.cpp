// safetensors headers: 8-byte little-endian header length + JSON header {name: {dtype, shape,
// data_offsets}, "__metadata__"} (https://github.com/huggingface/safetensors, format section).
// Only the header is read, never tensor data.
#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/spec/spec_io.hpp"

namespace rightsize::io {
namespace {

namespace fs = std::filesystem;
using i64 = std::int64_t;

// Past these a header is hostile or corrupt, not a checkpoint: 1e15 elements in one tensor and
// 1e17 bytes or parameters in all (the largest public checkpoints hold ~1e12).
constexpr i64 k_max_tensor_elements = 1'000'000'000'000'000;
constexpr i64 k_max_checkpoint_total = 100'000'000'000'000'000;

// Resource bounds (docs/reliability.md, "Resource limits"): one header at most 16 MiB (the largest
// public shards have headers under 1 MiB), all headers of a checkpoint 32 MiB, 1M tensors.
constexpr std::uint64_t k_max_header_bytes = 16ULL * 1024 * 1024;
constexpr std::uint64_t k_max_total_header_bytes = 32ULL * 1024 * 1024;
constexpr i64 k_max_tensors = 1'000'000;

// Bits per element of the safetensors dtypes (the format's list; F4 and F6 are packed).
int dtype_bits(const std::string& dtype) {
  static const std::map<std::string, int, std::less<>> bits = {
      {"BOOL", 8},    {"U8", 8},   {"I8", 8},      {"F8_E4M3", 8}, {"F8_E5M2", 8},
      {"F8_E8M0", 8}, {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"I16", 16},
      {"U16", 16},    {"F16", 16}, {"BF16", 16},   {"I32", 32},    {"U32", 32},
      {"F32", 32},    {"I64", 64}, {"U64", 64},    {"F64", 64},    {"C64", 64},
  };
  const auto it = bits.find(dtype);
  return it == bits.end() ? 0 : it->second;
}

constexpr const char* k_dtypes =
    "BOOL, U8, I8, F8_E4M3, F8_E5M2, F8_E8M0, F4, F6_E2M3, F6_E3M2, I16, U16, F16, BF16, I32, U32, F32, "
    "I64, U64, F64 or C64";

[[noreturn]] void bad(const std::string& path, const std::string& message) {
  throw Error(ErrorKind::input, path, "", message);
}

// Header length from the first 8 bytes (little-endian), checked against the file size.
std::uint64_t header_length(const unsigned char* raw, std::uint64_t size, const std::string& path) {
  if (size < 8)
    bad(path, fmt::format("expected a safetensors file (8-byte header length first), got {} bytes", size));
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < 8; ++i)
    length |= static_cast<std::uint64_t>(raw[i]) << (8 * i);
  if (length > k_max_header_bytes) {
    bad(path,
        fmt::format("expected a safetensors header of at most 16 MiB, got a header length of {}", length));
  }
  if (length + 8 > size) {
    bad(path,
        fmt::format("expected a header length within the file size ({} bytes), got {}; truncated or not "
                    "safetensors",
                    size, length));
  }
  return length;
}

// Element count of a tensor: the product of its dimensions, refused past k_max_tensor_elements
// (checked before multiplying, so a hostile shape cannot overflow).
i64 element_count(const JsonReader& shape) {
  i64 numel = 1;
  for (const auto& d : shape.elements()) {
    const i64 dim = d.as_int(0, k_max_tensor_elements);
    if (dim != 0 && numel > k_max_tensor_elements / dim) {
      shape.fail(fmt::format("expected a tensor of at most {} elements, got more",
                             with_commas(k_max_tensor_elements)));
    }
    numel *= dim;
  }
  return numel;
}

// Adds one header's tensors to `info`. `data_size` is the byte count after the header.
void add_header(const std::string& header, std::uint64_t data_size, const std::string& path,
                CheckpointInfo& info) {
  nlohmann::json doc;
  try {
    doc = parse_json(header, path);
  } catch (const Error& e) {
    if (e.pointer().empty()) bad(path, "expected a JSON safetensors header, got malformed JSON");
    throw; // a duplicate tensor name, a NUL in a name, nesting past the limit: with its pointer
  }
  const JsonReader root(doc, path);
  if (!root.is_object()) root.fail("expected a safetensors header object, got " + describe_value(doc));
  // Byte ranges of the tensors, to refuse overlaps (4,000 tensors on one range read as 8 GB).
  std::vector<std::pair<std::pair<i64, i64>, std::string>> ranges;
  for (const auto& item : doc.items()) {
    if (item.key() == "__metadata__") continue;
    const JsonReader t = root.at(item.key());
    t.expect_keys({"dtype", "shape", "data_offsets"});
    const std::string dtype = t.at("dtype").as_string();
    const int bits = dtype_bits(dtype);
    if (bits == 0) t.at("dtype").fail(fmt::format("unknown dtype \"{}\" (expected {})", dtype, k_dtypes));
    const i64 numel = element_count(t.at("shape"));
    const auto offsets = t.at("data_offsets").elements();
    if (offsets.size() != 2)
      t.at("data_offsets").fail("expected [begin, end], got " + describe_value(t.at("data_offsets").value()));
    const i64 begin = offsets[0].as_int(0, 1'000'000'000'000'000);
    const i64 end = offsets[1].as_int(0, 1'000'000'000'000'000);
    if (end < begin) offsets[1].fail(fmt::format("expected an end offset >= {}, got {}", begin, end));
    if (static_cast<std::uint64_t>(end) > data_size) {
      offsets[1].fail(fmt::format("expected an end offset within the {} data bytes; truncated file, got {}",
                                  data_size, end));
    }
    // numel <= 1e15 and bits <= 64: the product fits in int64.
    const i64 expected_bits = numel * bits;
    if (end - begin != (expected_bits + 7) / 8) {
      t.at("data_offsets")
          .fail(fmt::format("expected {} bytes for {} elements of {}, got a range of {} bytes",
                            (expected_bits + 7) / 8, numel, dtype, end - begin));
    }
    if (info.tensor_count >= k_max_tensors) {
      t.fail(
          fmt::format("expected at most {} tensors in a checkpoint, got more", with_commas(k_max_tensors)));
    }
    if (info.weight_bytes > k_max_checkpoint_total - (end - begin) ||
        info.parameter_count > k_max_checkpoint_total - numel) {
      t.fail(fmt::format("expected a checkpoint of at most {} bytes and parameters, got more",
                         with_commas(k_max_checkpoint_total)));
    }
    if (end > begin) ranges.push_back({{begin, end}, item.key()});
    info.weight_bytes += end - begin;
    info.parameter_count += numel;
    info.tensor_count += 1;
    info.bytes_by_dtype[dtype] += end - begin;
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first.first < ranges[i - 1].first.second) {
      const JsonReader t = root.at(ranges[i].second);
      t.at("data_offsets")
          .fail(fmt::format(
              "expected tensors on separate bytes, got bytes [{}, {}) overlapping \"{}\" [{}, {})",
              ranges[i].first.first, ranges[i].first.second, ranges[i - 1].second, ranges[i - 1].first.first,
              ranges[i - 1].first.second));
    }
  }
}

void add_file(const std::string& path, CheckpointInfo& info) {
  require_regular_file(path); // a directory, a device (/dev/zero) or a symlink loop, said as such
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) bad(path, "cannot open file: no such file");
  if (size < 8) (void)header_length(nullptr, size, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open file: permission denied or unreadable");
  std::array<unsigned char, 8> raw{};
  in.read(reinterpret_cast<char*>(raw.data()), 8); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  if (!in) bad(path, "cannot read the safetensors header");
  const std::uint64_t length = header_length(raw.data(), size, path);
  info.header_bytes_read += length;
  if (info.header_bytes_read > k_max_total_header_bytes) {
    bad(path,
        fmt::format("expected safetensors headers of at most 32 MiB in all, got more ({} shards so far)",
                    info.shard_count + 1));
  }
  info.shard_count += 1;
  std::string header(static_cast<std::size_t>(length), '\0');
  in.read(header.data(), static_cast<std::streamsize>(length));
  if (!in) bad(path, "cannot read the safetensors header");
  add_header(header, size - 8 - length, path, info);
}

void add_index(const std::string& path, CheckpointInfo& info) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  root.expect_object();
  std::set<std::string> shards;
  for (const auto& item : root.at("weight_map").value().items()) {
    if (!item.value().is_string()) root.at("weight_map").at(item.key()).fail("expected a shard file name");
    shards.insert(item.value().get<std::string>());
  }
  const fs::path dir = fs::path(path).parent_path();
  std::size_t present = 0;
  std::error_code ec;
  // One file under two spellings ("s.safetensors", "./s.safetensors") would be counted twice.
  std::map<std::string, std::string> spelled;
  for (const auto& s : shards) {
    std::error_code canonical_ec;
    const fs::path target = fs::weakly_canonical(dir / s, canonical_ec);
    const std::string key = canonical_ec ? (dir / s).lexically_normal().string() : target.string();
    const auto [it, fresh] = spelled.emplace(key, s);
    if (!fresh) {
      root.at("weight_map")
          .fail(fmt::format("expected one name per shard file, got \"{}\" and \"{}\" for the same file",
                            it->second, s));
    }
    present += fs::exists(dir / s, ec) ? 1U : 0U;
  }
  if (present == shards.size() && !shards.empty()) {
    for (const auto& s : shards)
      add_file((dir / s).string(), info);
    info.basis = "shard headers";
    return;
  }
  auto total = root.find("metadata") ? root.at("metadata").find("total_size") : std::nullopt;
  if (!total) (void)root.at("metadata").at("total_size"); // "missing required key"
  info.weight_bytes = positive_count(*total, 100'000'000'000'000, "bytes");
  info.basis = present == 0 ? "index metadata.total_size; shards absent"
                            : fmt::format("index metadata.total_size; {} of {} shards absent",
                                          shards.size() - present, shards.size());
}

} // namespace

CheckpointInfo parse_safetensors(std::string_view bytes, const std::string& source) {
  CheckpointInfo info;
  const auto* raw = reinterpret_cast<const unsigned char*>(
      bytes.data()); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  const std::uint64_t length = header_length(raw, bytes.size(), source);
  add_header(std::string(bytes.substr(8, static_cast<std::size_t>(length))), bytes.size() - 8 - length,
             source, info);
  info.basis = "safetensors header";
  return info;
}

CheckpointInfo read_checkpoint(const std::string& path) {
  CheckpointInfo info;
  std::error_code ec;
  if (path.empty()) bad("\"\"", "expected a checkpoint path, got an empty string");
  (void)fs::status(path, ec);
  if (ec && ec.value() == ELOOP) bad(path, "cannot open file: a symbolic link loop");
  if (!fs::exists(path, ec)) bad(path, "cannot open file: no such file or folder");
  if (fs::is_directory(path, ec)) {
    const fs::path index = fs::path(path) / "model.safetensors.index.json";
    if (fs::exists(index, ec)) {
      add_index(index.string(), info);
      return info;
    }
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.path().extension() == ".safetensors") files.push_back(e.path().string());
    }
    if (files.empty())
      bad(path, "expected a folder with .safetensors files or model.safetensors.index.json, got none");
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
      add_file(f, info);
    info.basis = files.size() == 1 ? "safetensors header" : "shard headers";
    return info;
  }
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".json") {
    add_index(path, info);
    return info;
  }
  add_file(path, info);
  info.basis = "safetensors header";
  return info;
}

} // namespace rightsize::io
