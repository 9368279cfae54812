// One verdict vocabulary (issue 40): core::judge of a training run, the closeness every search ranks
// misses by, the stable rejection codes, and every term's words in its three forms (render/term_words).
// Hand-written expectations.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "render/term_words.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/training.hpp"

using namespace rightsize;

namespace {

// A run that fits: 50 h to train, $12,000 in all.
TrainingEstimate round_run() {
  TrainingEstimate e;
  e.memory.fits = true;
  e.memory.per_gpu_bytes = 70e9;
  e.memory.usable_per_gpu_bytes = 76.5e9;
  e.time_to_train_s = 50.0 * 3600.0 / 1.3;    // ideal
  e.time_to_train_planning_s = 50.0 * 3600.0; // × 1.3 planning overhead: what the deadline sees
  e.usd_total = 12000.0;
  return e;
}

} // namespace

TEST_CASE("judge: a training run on deadline, budget and price terms", "[core][judge]") {
  Sla sla;
  sla.deadline_hours = 72.0;
  sla.budget_usd = 20000.0;
  const Verdict ok = judge(round_run(), sla, true);
  REQUIRE(ok.passes());
  REQUIRE(ok.term_count == 2);
  CHECK(ok.terms[0].term == Term::deadline);
  CHECK(ok.terms[0].value == Approx(50.0));
  CHECK(ok.terms[0].margin() == Approx(1.0 - 50.0 / 72.0));
  CHECK(ok.terms[1].term == Term::budget);
  CHECK(ok.terms[1].margin() == Approx(0.4)); // 1 - 12,000 / 20,000

  // The deadline is judged on the planned time (50 h), not the ideal one (38.5 h): a 45 h
  // deadline is missed although the ideal run would finish in it.
  sla.deadline_hours = 45.0;
  CHECK(judge(round_run(), sla, true).first.term == Term::deadline);

  // A deadline miss comes before a budget miss (canonical order).
  sla.deadline_hours = 40.0;
  sla.budget_usd = 10000.0;
  const Verdict late = judge(round_run(), sla, true);
  CHECK(late.first.term == Term::deadline);
  CHECK(late.first.value == Approx(50.0));
  CHECK(late.first.limit == Approx(40.0));
  CHECK_FALSE(late.terms[1].met);

  // Without a price the budget term misses, and the rejection says it is the price.
  sla.deadline_hours.reset();
  const Verdict unpriced = judge(round_run(), sla, false);
  CHECK(unpriced.terms[0].term == Term::budget);
  CHECK(unpriced.first.term == Term::price);
  CHECK(unpriced.first.value == 0.0);
  CHECK(unpriced.first.limit == Approx(10000.0));
}

TEST_CASE("judge: a training run at its throughput band's p10", "[core][judge]") {
  // At 0.8 of the point tokens/s the run takes 50 / 0.8 = 62.5 h and costs 12,000 / 0.8 = $15,000.
  Sla sla;
  sla.deadline_hours = 60.0;
  sla.budget_usd = 20000.0;
  CHECK(judge(round_run(), sla, true).passes()); // the point estimate meets both
  const Verdict v = judge(round_run(), sla, true, 0.8);
  CHECK(v.first.term == Term::deadline);
  CHECK(v.first.value == Approx(62.5));
  CHECK(v.first.point_value == Approx(50.0));
  REQUIRE(v.term_count == 2);
  CHECK(v.terms[1].value == Approx(15000.0));
  CHECK(v.terms[1].point_value == Approx(12000.0));
  CHECK(v.terms[1].met);
  // The budget misses at the band's end: $15,000 > $14,000 although $12,000 would meet it.
  sla.deadline_hours.reset();
  sla.budget_usd = 14000.0;
  CHECK(judge(round_run(), sla, true).passes());
  CHECK(judge(round_run(), sla, true, 0.8).first.term == Term::budget);
}

TEST_CASE("judge: a training run's feasibility terms come first", "[core][judge]") {
  Sla sla;
  sla.deadline_hours = 1.0;
  TrainingEstimate no_link = round_run();
  no_link.time_to_train_s = std::numeric_limits<double>::infinity(); // a collective without a link figure
  CHECK(judge(no_link, sla, true).first.term == Term::link);
  CHECK(judge(no_link, sla, true).term_count == 0);
  TrainingEstimate big = round_run();
  big.memory.fits = false;
  big.precision_supported = false;
  CHECK(judge(big, sla, true).first.term == Term::precision);
  big.precision_supported = true;
  const Verdict v = judge(big, sla, true);
  CHECK(v.first.term == Term::memory);
  CHECK(v.first.value == Approx(70e9));
  CHECK(v.first.limit == Approx(76.5e9));
}

TEST_CASE("closeness and codes: one order and one code per term", "[core][judge]") {
  // A missing price is nearest to passing, then cost and power, then load, then latency (TPOT nearer
  // than TTFT), then not fitting, no link, no precision, no engine build for the vendor.
  const Term order[] = {Term::none, Term::price,  Term::budget, Term::requests_per_s, Term::e2e,   Term::tpot,
                        Term::ttft, Term::memory, Term::link,   Term::precision,      Term::engine};
  for (std::size_t i = 1; i < std::size(order); ++i)
    CHECK(closeness(order[i - 1]) < closeness(order[i]));
  CHECK(closeness(Term::power) == closeness(Term::budget));
  CHECK(closeness(Term::deadline) == closeness(Term::output_tokens_per_s));
  CHECK(std::string(reason_code(Term::memory)) == "does_not_fit");
  CHECK(std::string(reason_code(Term::link)) == "layout");
  CHECK(std::string(reason_code(Term::precision)) == "precision_unsupported");
  CHECK(std::string(reason_code(Term::engine)) == "engine_unsupported");
  CHECK(std::string(reason_code(Term::price)) == "no_price");
  CHECK(std::string(reason_code(Term::output_tokens_per_s)) == "throughput");
  CHECK(std::string(reason_code(Term::tpot)) == "tpot");
  CHECK(std::string(to_string(Term::output_tokens_per_s)) == "output_tokens_per_s");
}

TEST_CASE("term words: each term in the rejection, check and caution forms", "[render][judge]") {
  using cli::TermForm;
  const auto say = [](const TermCheck& t, TermForm form, bool per_run = false) {
    cli::TermWording how;
    how.form = form;
    how.concurrency = 8;
    how.cost_per_run = per_run;
    return cli::describe(t, how);
  };
  TermCheck tpot{Term::tpot, 55.0, 48.0, 50.0, false};
  CHECK(say(tpot, TermForm::rejection) == "TPOT 48.0 ms (band p90 55.0 ms) > SLA 50 ms at concurrency 8");
  CHECK(say(tpot, TermForm::check) == "TPOT 48.0 ms (band p90 55.0 ms) > 50 ms");
  CHECK(say(tpot, TermForm::caution) == "TPOT 48.0 ms meets 50 ms, but its band's p90 is 55.0 ms");

  const TermCheck memory = failed_term(Term::memory, 80e9, 76.5e9);
  CHECK(say(memory, TermForm::rejection) == "needs 80.0 GB per GPU, has 76.5 GB usable");
  CHECK(say(memory, TermForm::check) == "needs 80.0 GB per GPU > 76.5 GB usable");
  CHECK(say(memory, TermForm::caution).empty());

  const TermCheck late = failed_term(Term::deadline, 50.0, 40.0);
  CHECK(say(late, TermForm::rejection) == "takes 50.0 h planned > deadline 40 h");
  const TermCheck late_band{Term::deadline, 62.5, 50.0, 60.0, false};
  CHECK(say(late_band, TermForm::rejection) == "takes 50.0 h planned (band p90 62.5 h) > deadline 60 h");
  const TermCheck over_band{Term::budget, 15000.0, 12000.0, 14000.0, false};
  CHECK(say(over_band, TermForm::check, true) == "costs $12.0k (band p90 $15.0k) > budget $14.0k");
  TermCheck budget{Term::budget, 12000.0, 12000.0, 20000.0, true};
  CHECK(say(budget, TermForm::check, true) == "costs $12.0k ≤ budget $20.0k");
  CHECK(say(failed_term(Term::price, 0.0, 20000.0), TermForm::rejection, true) ==
        "no price known for this GPU, so the $20.0k budget cannot be checked");
  CHECK(say(failed_term(Term::price), TermForm::rejection) ==
        "no price known for this GPU, so no cost to rank or judge it by (--price ID=USD gives one)");
  CHECK(say(failed_term(Term::power, 9.6, 8.0), TermForm::rejection) ==
        "draws 9.60 kW at peak load > cap 8 kW");
  CHECK(say(TermCheck{}, TermForm::rejection) == "meets every requirement");
  CHECK(say(TermCheck{}, TermForm::check).empty());
}
