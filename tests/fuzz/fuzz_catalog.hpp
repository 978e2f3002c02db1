#pragma once
// Every model's schema, as models/registry.hpp's model_catalog() collects them, but without the model headers
// (they need Kokkos, which the fuzz build does not have). tests/test_fuzz_findings.cpp checks that this list names
// the same kinds as the registry, so a new model cannot be left out of the loader's fuzzing unnoticed.
#include <vector>

#include "core/model/model_schema.hpp"
#include "models/adex_costa/adex_schema.hpp"
#include "models/galbraith_decoder/decoder_schema.hpp"
#include "models/galbraith_gemm/gemm_schema.hpp"
#include "models/galbraith_lif/galbraith_schema.hpp"
#include "models/galbraith_som/som_schema.hpp"
#include "models/olive/olive_schema.hpp"
#include "models/point/point_schema.hpp"

namespace kbrain::fuzz {

inline const ModelCatalog& schema_catalog() {
  static const ModelCatalog catalog(std::vector<ModelSchema>{
      olive::olive_schema(), point::point_schema("lif"), point::point_schema("izhikevich"), point::point_schema("hh"),
      point::cortex_hh_schema(), adex::adex_schema(), galbraith::galbraith_schema(), galbraith::gemm_schema(),
      galbraith::som_schema(), galbraith::decoder_schema()});
  return catalog;
}

}  // namespace kbrain::fuzz
