// safetensors header reading with generated files: good, sharded, index-only and corrupt ones.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include <unistd.h>

using namespace rightsize;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("rightsize_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_raw(const fs::path& path, std::uint64_t length, const std::string& header,
               std::size_t data_bytes) {
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 8; ++i)
    out.put(static_cast<char>((length >> (8 * i)) & 0xffU));
  out << header << std::string(data_bytes, '\0');
}

void write_file(const fs::path& path, const std::string& header, std::size_t data_bytes) {
  write_raw(path, header.size(), header, data_bytes);
}

std::string error_of_safetensors(const std::string& path) {
  try {
    (void)io::read_checkpoint(path);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

} // namespace

TEST_CASE("safetensors: bytes per dtype from the header only", "[io]") {
  const fs::path dir = temp_dir("single");
  write_file(dir / "model.safetensors",
             R"({"__metadata__":{"format":"pt"},"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},)"
             R"("b":{"dtype":"F32","shape":[4],"data_offsets":[12,28]}})",
             28);
  const io::CheckpointInfo info = io::read_checkpoint((dir / "model.safetensors").string());
  CHECK(info.weight_bytes == 28);
  CHECK(info.parameter_count == 10);
  CHECK(info.tensor_count == 2);
  CHECK(info.bytes_by_dtype.at("BF16") == 12);
  CHECK(info.basis == "safetensors header");
}

TEST_CASE("safetensors: sharded index reads shards, or falls back to total_size", "[io]") {
  const fs::path dir = temp_dir("sharded");
  write_file(dir / "a.safetensors", R"({"x":{"dtype":"BF16","shape":[8],"data_offsets":[0,16]}})", 16);
  write_file(dir / "b.safetensors", R"({"y":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})", 8);
  std::ofstream(dir / "model.safetensors.index.json")
      << R"({"metadata":{"total_size":24},"weight_map":{"x":"a.safetensors","y":"b.safetensors"}})";
  const io::CheckpointInfo info = io::read_checkpoint(dir.string());
  CHECK(info.weight_bytes == 24);
  CHECK(info.basis == "shard headers");
  const fs::path only = temp_dir("index_only");
  std::ofstream(only / "model.safetensors.index.json")
      << R"({"metadata":{"total_size":140000000000},"weight_map":{"x":"model-00001-of-00030.safetensors"}})";
  const io::CheckpointInfo index = io::read_checkpoint(only.string());
  CHECK(index.weight_bytes == 140'000'000'000);
  CHECK(index.basis == "index metadata.total_size; shards absent");
}

TEST_CASE("safetensors: corrupt files give clean errors", "[io]") {
  const fs::path dir = temp_dir("corrupt");
  write_raw(dir / "long.safetensors", 1000, "{}", 0);
  CHECK(error_of_safetensors((dir / "long.safetensors").string()) ==
        "expected a header length within the file size (10 bytes), got 1000; truncated or not safetensors");
  write_raw(dir / "huge.safetensors", 1ULL << 40, "{}", 0);
  CHECK(error_of_safetensors((dir / "huge.safetensors").string()) ==
        "expected a safetensors header of at most 16 MiB, got a header length of 1099511627776");
  write_file(dir / "json.safetensors", "{oops", 0);
  CHECK(error_of_safetensors((dir / "json.safetensors").string()) ==
        "expected a JSON safetensors header, got malformed JSON");
  write_file(dir / "trunc.safetensors", R"({"x":{"dtype":"BF16","shape":[8],"data_offsets":[0,16]}})", 4);
  CHECK(error_of_safetensors((dir / "trunc.safetensors").string()) ==
        "expected an end offset within the 4 data bytes; truncated file, got 16");
  std::ofstream(dir / "tiny.safetensors") << "abc";
  CHECK(error_of_safetensors((dir / "tiny.safetensors").string()) ==
        "expected a safetensors file (8-byte header length first), got 3 bytes");
  const fs::path empty = temp_dir("empty_dir");
  CHECK(error_of_safetensors(empty.string()) ==
        "expected a folder with .safetensors files or model.safetensors.index.json, got none");
}

TEST_CASE("safetensors: untrusted headers are checked (issue 22 items 4 and 15)", "[io]") {
  const fs::path dir = temp_dir("untrusted_" + std::to_string(::getpid()));
  const auto message_of = [](const fs::path& path) {
    try {
      (void)io::read_checkpoint(path.string());
    } catch (const Error& e) {
      return e.pointer().empty() ? e.message() : e.pointer() + ": " + e.message();
    }
    return std::string("no error");
  };
  // Two tensors on the same bytes.
  write_file(
      dir / "overlap.safetensors",
      R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[4,12]}})",
      12);
  CHECK(message_of(dir / "overlap.safetensors") ==
        "/b/data_offsets: expected tensors on separate bytes, got bytes [4, 12) overlapping \"a\" [0, 8)");
  // A shape that disagrees with its byte range.
  write_file(dir / "shape.safetensors", R"({"a":{"dtype":"BF16","shape":[4, 1000],"data_offsets":[0,8]}})",
             8);
  CHECK(message_of(dir / "shape.safetensors") ==
        "/a/data_offsets: expected 8000 bytes for 4000 elements of BF16, got a range of 8 bytes");
  // An unknown dtype.
  write_file(dir / "dtype.safetensors", R"({"a":{"dtype":"WHAT","shape":[4],"data_offsets":[0,8]}})", 8);
  CHECK(
      message_of(dir / "dtype.safetensors").rfind("/a/dtype: unknown dtype \"WHAT\" (expected BOOL, U8", 0) ==
      0);
  // Packed 4-bit values: 3 elements in 2 bytes.
  write_file(dir / "f4.safetensors", R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2);
  CHECK(message_of(dir / "f4.safetensors") == "no error");
  // A repeated tensor name (nlohmann would keep the last silently).
  write_file(
      dir / "dup.safetensors",
      R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]},"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,8]}})",
      8);
  CHECK(message_of(dir / "dup.safetensors") == "/a: duplicate key \"a\" (each key may appear once)");
  // The same shard under two spellings in an index.
  const fs::path sharded = dir / "sharded";
  fs::create_directories(sharded);
  write_file(sharded / "s.safetensors", R"({"x":{"dtype":"BF16","shape":[8],"data_offsets":[0,16]}})", 16);
  std::ofstream(sharded / "model.safetensors.index.json")
      << R"({"metadata":{"total_size":16},"weight_map":{"x":"s.safetensors","y":"./s.safetensors","z":".//s.safetensors"}})";
  CHECK(message_of(sharded).find("expected one name per shard file, got \"") != std::string::npos);
  // A directory named like a shard, a device and a symlink loop say what they are.
  const fs::path folder = dir / "folder";
  fs::create_directories(folder / "x.safetensors");
  CHECK(message_of(folder) == "expected a file, got a directory");
  CHECK(message_of("/dev/zero") == "expected a regular file, got a pipe, socket or device");
  fs::create_symlink(dir / "loop_b.safetensors", dir / "loop_a.safetensors");
  fs::create_symlink(dir / "loop_a.safetensors", dir / "loop_b.safetensors");
  CHECK(message_of(dir / "loop_a.safetensors") == "cannot open file: a symbolic link loop");
  fs::remove_all(dir);
}
