// One wording function per judged term (core's Term), each in the rejection, check and caution forms.
// The numbers' precision follows docs/output-schema.md; the sentences are the ones documented in
// docs/cli.md ("Rejection codes") and pinned by the goldens.
#include "render/term_words.hpp"

#include <cmath>

#include <fmt/compile.h>

#include "render/number_text.hpp"
#include "render/render.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

using Out = fmt::memory_buffer;

const char* comparison(const TermCheck& t) {
  return t.met ? "≤" : ">";
}

void engine_words(Out& out, const TermCheck& /*t*/, const TermWording& /*how*/) {
  put(out, "the serving engine has no build for this GPU's vendor (TensorRT-LLM runs on NVIDIA GPUs only; "
           "data/engines.json \"vendors\")");
}

void precision_words(Out& out, const TermCheck& /*t*/, const TermWording& /*how*/) {
  put(out,
      "the catalog gives this GPU no tensor-core rate for this precision (it does not run it, or no figure "
      "is published)");
}

void link_words(Out& out, const TermCheck& /*t*/, const TermWording& /*how*/) {
  put(out, "the catalog gives no link bandwidth between these GPUs");
}

void memory_words(Out& out, const TermCheck& t, const TermWording& how) {
  if (how.form == TermForm::caution) return;
  // A sweep writes this sentence for every point that does not fit: digits without fmt's float path.
  put(out, "needs ");
  put_fixed(out, t.value / k_bytes_per_gb, 1);
  if (how.form == TermForm::check) {
    put(out, " GB per GPU ");
    put(out, comparison(t));
    put(out, " ");
  } else {
    put(out, " GB per GPU, has ");
  }
  put_fixed(out, t.limit / k_bytes_per_gb, 1);
  put(out, " GB usable");
}

// TTFT, TPOT and end-to-end: a latency named by a percentile says which (the value is that statistic at
// the judged end). The point estimate first (the tables' figure), then the band end it was judged at
// when they differ.
void latency_words(Out& out, const TermCheck& t, const TermWording& how) {
  auto it = fmt::appender(out);
  const std::string_view name = t.term == Term::ttft   ? "TTFT"
                                : t.term == Term::tpot ? "TPOT"
                                                       : how.words.latency;
  const char* stat = stat_suffix(t.stat);
  // Overloaded at the band's slow end (methodology §3.5): the judged end has no bound.
  const bool unbounded = !std::isfinite(t.value);
  if (how.form == TermForm::caution) {
    if (unbounded) {
      fmt::format_to(it,
                     FMT_COMPILE("{} {:.1f} ms meets {:g} ms, but its band's p90 is unbounded: at the band's "
                                 "slow end the arrivals exceed what it serves"),
                     name, t.point_value, t.limit);
      return;
    }
    fmt::format_to(it, FMT_COMPILE("{} {:.1f} ms meets {:g} ms, but its band's p90 is {:.1f} ms"), name,
                   t.point_value, t.limit, t.value);
    return;
  }
  if (how.form == TermForm::check) {
    if (t.overloaded) {
      fmt::format_to(
          it, FMT_COMPILE("{}{} unbounded {} {:g} ms: the arrival rate exceeds what it serves (overloaded)"),
          name, stat, comparison(t), t.limit);
      return;
    }
    fmt::format_to(it, FMT_COMPILE("{}{} {:.1f} ms"), name, stat, t.point_value);
    if (unbounded)
      put(out, " (band p90 unbounded: overloaded at the band's slow end)");
    else if (t.value != t.point_value)
      fmt::format_to(it, FMT_COMPILE(" (band p90 {:.1f} ms)"), t.value);
    fmt::format_to(it, FMT_COMPILE(" {} {:g} ms"), comparison(t), t.limit);
    return;
  }
  // The point estimate of a rejection; its judged value when none was kept. TPOT keeps a decimal.
  const double point = t.point_value > 0.0 ? t.point_value : t.value;
  const bool band = t.point_value > 0.0 && t.point_value != t.value;
  const int decimals = t.term == Term::tpot ? 1 : 0;
  put(out, name);
  put(out, stat);
  put(out, " ");
  put_fixed(out, point, decimals);
  put(out, " ms");
  if (band && unbounded) {
    put(out, " (band p90 unbounded: overloaded at the band's slow end)");
  } else if (band) {
    put(out, " (band p90 ");
    put_fixed(out, t.value, decimals);
    put(out, " ms)");
  }
  fmt::format_to(it, FMT_COMPILE(" > SLA {:g} ms at {} {}"), t.limit, how.words.at_once, how.concurrency);
}

void load_check_words(Out& out, const TermCheck& t, const TermWording& how) {
  auto it = fmt::appender(out);
  const std::string_view unit = t.term == Term::requests_per_s ? how.words.rate : "output tok/s";
  const auto spare = [&] {
    if (t.headroom > 0.0)
      fmt::format_to(it, FMT_COMPILE(" (SLA peak {:g} + {:g} % headroom)"), t.limit / (1.0 + t.headroom),
                     t.headroom * 100.0);
  };
  // An overloaded open loop without a capacity figure (one assembled by hand) serves less than its
  // arrivals by an amount the model does not give.
  if (t.overloaded && !t.capacity) {
    fmt::format_to(it, FMT_COMPILE("serves less than its {:g} {} of arrivals, {:g} needed"), t.point_value,
                   unit, t.limit);
    spare();
    put(out, ": overloaded, the queue grows without end");
    return;
  }
  // An open loop is held to its closed-loop capacity (core::judge); the sign is the comparison's, an
  // overloaded queue is said apart.
  const bool enough = t.value >= t.limit * (1.0 - 1e-9);
  fmt::format_to(it, FMT_COMPILE("{} {:.2f} {}"), t.capacity ? "capacity" : "serves", t.point_value, unit);
  if (t.value != t.point_value) fmt::format_to(it, FMT_COMPILE(" (band p10 {:.2f})"), t.value);
  fmt::format_to(it, FMT_COMPILE(" {} {:g} needed"), enough ? "≥" : "<", t.limit);
  spare();
  if (t.overloaded) put(out, "; overloaded at the arrival rate (the queue grows without end)");
}

// Requests (images, items) or output tokens per second served against the SLA's load.
void load_words(Out& out, const TermCheck& t, const TermWording& how) {
  auto it = fmt::appender(out);
  if (how.form == TermForm::check) {
    load_check_words(out, t, how);
  } else if (how.form == TermForm::caution) {
    if (t.term == Term::requests_per_s) {
      fmt::format_to(it, FMT_COMPILE("{:.1f} {} meets {:g} {}, but its band's p10 is {:.1f}"), t.point_value,
                     how.words.rate, t.limit, how.words.rate, t.value);
    } else {
      fmt::format_to(it, FMT_COMPILE("{:.0f} output tok/s meets {:g}, but its band's p10 is {:.0f}"),
                     t.point_value, t.limit, t.value);
    }
  } else if (t.headroom > 0.0) {
    fmt::format_to(it,
                   FMT_COMPILE("serves at most {:.1f}/s, needs {:g}/s (SLA peak {:g}/s + {:g} % headroom)"),
                   t.value, t.limit, t.limit / (1.0 + t.headroom), t.headroom * 100.0);
  } else {
    fmt::format_to(it, FMT_COMPILE("serves at most {:.1f}/s, SLA needs {:g}/s"), t.value, t.limit);
  }
}

// Training: the planned time, and the band's end it was judged at when that differs (--confidence p90).
void deadline_words(Out& out, const TermCheck& t, const TermWording& how) {
  if (how.form == TermForm::caution) return;
  auto it = fmt::appender(out);
  const double point = t.point_value > 0.0 ? t.point_value : t.value;
  fmt::format_to(it, FMT_COMPILE("takes {:.1f} h planned"), point);
  if (t.point_value > 0.0 && t.point_value != t.value)
    fmt::format_to(it, FMT_COMPILE(" (band p90 {:.1f} h)"), t.value);
  fmt::format_to(it, FMT_COMPILE(" {} deadline {:g} h"), how.form == TermForm::check ? comparison(t) : ">",
                 t.limit);
}

// Inference budgets are $/h of the deployment; training's a total per run.
void budget_words(Out& out, const TermCheck& t, const TermWording& how) {
  if (how.form == TermForm::caution) return;
  auto it = fmt::appender(out);
  const char* sign = how.form == TermForm::check ? comparison(t) : ">";
  if (how.cost_per_run) {
    const double point = t.point_value > 0.0 ? t.point_value : t.value;
    fmt::format_to(it, "costs {}", format_usd_total(point));
    if (t.point_value > 0.0 && t.point_value != t.value)
      fmt::format_to(it, " (band p90 {})", format_usd_total(t.value));
    fmt::format_to(it, " {} budget {}", sign, format_usd_total(t.limit));
    return;
  }
  // A budget term without a price (core::judge: met only when the price is known).
  if (how.form == TermForm::check && !t.met && t.value <= 0.0) {
    fmt::format_to(it, FMT_COMPILE("no price known: the ${:g}/h budget cannot be checked"), t.limit);
    return;
  }
  fmt::format_to(it, FMT_COMPILE("costs ${:.2f}/h {} budget ${:g}/h"), t.value, sign, t.limit);
}

void price_words(Out& out, const TermCheck& t, const TermWording& how) {
  if (how.form == TermForm::caution) return;
  if (!how.cost_per_run) {
    put(out, "no price known for this GPU, so no cost to rank or judge it by (--price ID=USD gives one)");
  } else if (t.limit > 0.0) {
    fmt::format_to(fmt::appender(out), "no price known for this GPU, so the {} budget cannot be checked",
                   format_usd_total(t.limit));
  } else {
    put(out, "no price known for this GPU, so no cost to rank the run by (--price ID=USD gives one)");
  }
}

void power_words(Out& out, const TermCheck& t, const TermWording& how) {
  auto it = fmt::appender(out);
  if (how.form == TermForm::caution) return;
  if (how.form == TermForm::check) {
    fmt::format_to(it, FMT_COMPILE("draws {:.2f} kW {} cap {:g} kW"), t.value, comparison(t), t.limit);
  } else if (t.value > 0.0) {
    fmt::format_to(it, FMT_COMPILE("draws {:.2f} kW at peak load > cap {:g} kW"), t.value, t.limit);
  } else {
    fmt::format_to(it, FMT_COMPILE("TDP unknown: cannot check the {:g} kW power cap"), t.limit);
  }
}

} // namespace

Vocabulary vocabulary_of(ModelKind kind) {
  switch (kind) {
  case ModelKind::decoder: return {};
  case ModelKind::dit: return {"image latency", "images/s", "batch"};
  case ModelKind::vit: return {"item latency", "items/s", "batch"};
  }
  return {};
}

void append_term(fmt::memory_buffer& out, const TermCheck& t, const TermWording& how) {
  if (how.form == TermForm::rejection && t.overloaded) {
    // Open loop past what the deployment serves: its latency is unbounded, not the stand-in value.
    put(out, "the arrival rate exceeds what it serves: the queue grows without end (overloaded)");
    return;
  }
  switch (t.term) {
  case Term::none:
    if (how.form == TermForm::rejection) put(out, "meets every requirement");
    return;
  case Term::engine: engine_words(out, t, how); return;
  case Term::precision: precision_words(out, t, how); return;
  case Term::link: link_words(out, t, how); return;
  case Term::memory: memory_words(out, t, how); return;
  case Term::ttft:
  case Term::tpot:
  case Term::e2e: latency_words(out, t, how); return;
  case Term::requests_per_s:
  case Term::output_tokens_per_s: load_words(out, t, how); return;
  case Term::deadline: deadline_words(out, t, how); return;
  case Term::budget: budget_words(out, t, how); return;
  case Term::price: price_words(out, t, how); return;
  case Term::power: power_words(out, t, how); return;
  }
}

std::string describe(const TermCheck& t, const TermWording& how) {
  fmt::memory_buffer out;
  append_term(out, t, how);
  return fmt::to_string(out);
}

} // namespace rightsize::cli
