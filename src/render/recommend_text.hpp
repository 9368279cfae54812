#pragma once
// `recommend`'s text table and Markdown (docs/cli.md "recommend"): the writers of one inference
// recommendation beside its JSON and CSV (render/recommend_render.cpp).
#include <string>

#include "app/recommend.hpp"
#include "render/recommend_render.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// The winner's line: what it is, why it won (the ranking's figure) and the SLA it meets, then the
/// best other GPU type's and attention-DP layout's gap; every format prints it (JSON: winner.why).
std::string winner_line(const SearchInputs& in, const app::RecommendResult& result, const Spec& spec);

/// Prints a recommendation as Markdown: the ranked rows, the winner, the cost of confidence and the
/// evidence, then the rejected rows.
void render_recommendation_markdown(const Spec& spec, const SearchInputs& in,
                                    const app::RecommendResult& result, const RenderOptions& options);

/// Prints a recommendation as the terminal table with the winner's notes and the closest misses.
void render_recommendation_text(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                                const LoadedCatalog& catalog, const RenderOptions& options);

} // namespace rightsize::cli
