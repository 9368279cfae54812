#include <catch2/catch.hpp>

#include "table.hpp"

using namespace rightsize::cli;

TEST_CASE("table renders aligned text, markdown and csv", "[cli]") {
  Table t;
  t.add_column("gpu");
  t.add_column("$/h", Align::right);
  t.add_column("note", Align::left, true);
  t.add_row({"H100-SXM", "$4.32", "fast"});
  t.add_row({"L4", "$0.80", "a, b"});
  CHECK(t.render_text(100) == "gpu         $/h  note\nH100-SXM  $4.32  fast\nL4        $0.80  a, b\n");
  CHECK(t.render_text(20) == "gpu         $/h\nH100-SXM  $4.32\nL4        $0.80\n");
  CHECK(t.render_markdown() == "| gpu | $/h | note |\n|---|---:|---|\n| H100-SXM | $4.32 | fast |\n| L4 | $0.80 | a, b |\n");
  CHECK(t.render_csv() == "gpu,$/h,note\nH100-SXM,$4.32,fast\nL4,$0.80,\"a, b\"\n");
}
