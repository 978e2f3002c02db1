#include "models/registry.hpp"

namespace kbrain {

const ModelCatalog& model_catalog() {
  static const ModelCatalog catalog = [] {
    std::vector<ModelSchema> all;
    for_each_model([&](auto tag) {
      for (auto& s : decltype(tag)::type::schemas()) all.push_back(std::move(s));
    });
    return ModelCatalog(std::move(all));
  }();
  return catalog;
}

}  // namespace kbrain
