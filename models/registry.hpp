#pragma once
// The models this build knows: one line per model. Config validation (through model_catalog()), the runner's
// dispatch, `kbrain run` and `kbrain compare` all iterate this list, so adding a model edits none of them
// (docs/dev/adding-a-model.md).
#include <string>
#include <tuple>

#include "core/model/model_schema.hpp"
#include "core/type_list.hpp"
#include "models/adex_costa/adex_model.hpp"
#include "models/cortex_hh/cortex_model.hpp"
#include "models/galbraith_decoder/decoder_model.hpp"
#include "models/galbraith_gemm/gemm_model.hpp"
#include "models/galbraith_lif/galbraith_model.hpp"
#include "models/galbraith_som/som_model.hpp"
#include "models/olive/olive_model.hpp"
#include "models/point/point_model.hpp"

namespace kbrain {

using EnabledModels = std::tuple<olive::OliveModel, point::PointModel, cortex::CortexHhModel, adex::AdexCostaModel,
                                 galbraith::GalbraithLifModel, galbraith::GalbraithGemmModel,
                                 galbraith::GalbraithSomModel, galbraith::GalbraithDecoderModel>;

// Calls f(TypeTag<Model>{}) for every model, in list order.
template <class F>
void for_each_model(F&& f) {
  for_each_type<EnabledModels>(f);
}

// Every kind of every model, for load_experiment() and `kbrain models`.
const ModelCatalog& model_catalog();

// Calls f(TypeTag<Model>{}) for the model that serves `kind`; ConfigError when none does (load_experiment has
// already refused such a file, naming the line).
template <class F>
void with_model(const std::string& kind, F&& f) {
  bool found = false;
  for_each_model([&](auto tag) {
    if (found) return;
    for (const auto& s : decltype(tag)::type::schemas())
      if (s.kind == kind) found = true;
    if (found) f(tag);
  });
  if (!found) throw ConfigError("model.kind \"" + kind + "\" is not a model of this kbrain");
}

// An experiment validated against every model's tables (load_experiment / parse_experiment with model_catalog()).
inline ExperimentConfig load_model_experiment(const std::filesystem::path& file) {
  return load_experiment(file, model_catalog());
}
inline ExperimentConfig parse_model_experiment(const std::string& toml_text, const std::filesystem::path& source) {
  return parse_experiment(toml_text, source, model_catalog());
}

}  // namespace kbrain
