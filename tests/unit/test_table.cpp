// The shared table renderer: alignment, truncation to the terminal width, markdown and CSV; the
// percentage words the tables' notes use.
#include <catch2/catch.hpp>

#include "render/render.hpp"
#include "render/table.hpp"

using namespace rightsize::cli;

namespace {

Table sample() {
  Table t({{"GPU"}, {"$/h", Align::right}, {"basis", Align::left, true}});
  t.add_row({"H100-SXM", "4.32", "median of 12 providers"});
  t.add_row({"L4", "0.805", "aws, \"g6\""});
  return t;
}

} // namespace

TEST_CASE("text tables align columns and drop trailing spaces", "[cli]") {
  CHECK(sample().render_text(200) == "GPU         $/h  basis\n"
                                     "--------  -----  ----------------------\n"
                                     "H100-SXM   4.32  median of 12 providers\n"
                                     "L4        0.805  aws, \"g6\"\n");
}

TEST_CASE("text tables cut shrinkable columns to the width", "[cli]") {
  CHECK(sample().render_text(30) == "GPU         $/h  basis\n"
                                    "--------  -----  -------------\n"
                                    "H100-SXM   4.32  median of ...\n"
                                    "L4        0.805  aws, \"g6\"\n");
}

TEST_CASE("markdown and csv escape their separators", "[cli]") {
  Table t({{"a|b"}, {"n", Align::right}});
  t.add_row({"x", "1"});
  CHECK(t.render_markdown() == "| a\\|b | n |\n| --- | ---: |\n| x | 1 |\n");
  CHECK(sample().render_csv() ==
        "GPU,$/h,basis\nH100-SXM,4.32,median of 12 providers\nL4,0.805,\"aws, \"\"g6\"\"\"\n");
}

TEST_CASE("numbers print with trimmed fixed precision", "[cli]") {
  CHECK(format_number(989.5, 2) == "989.5");
  CHECK(format_number(80.0, 2) == "80");
  CHECK(format_number(2.695, 3) == "2.695");
  CHECK(format_number(-0.0001, 2) == "0");
}

TEST_CASE("a percentage difference never reads 0% unless it is none", "[cli]") {
  CHECK(format_pct(38.2) == "38%");
  CHECK(format_pct(-38.2) == "38%"); // the sign is in the words around it ("less", "more")
  CHECK(format_pct(0.9) == "1%");
  CHECK(format_pct(0.32) == "0.3%"); // $0.314 against $0.313 (recommend chat-8b's runner-up)
  CHECK(format_pct(0.06) == "0.1%");
  CHECK(format_pct(0.04) == "<0.1%");
  CHECK(format_pct(0.0) == "0%");
}
