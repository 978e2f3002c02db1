#pragma once
// The spiking models' columns in `kbrain compare`: the field's benchmark figures (real-time factor = wall time of
// the timed steps / their biological time, synaptic events per second, energy per synaptic event from the
// backend's counter: a lower bound of the outlet energy; the network's build time is compare's generate_s), each
// population's rate and ISI CV, and their agreement with the reference run (identical spike lists; largest relative
// rate / CV differences).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "models/point/point_plan.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::point {

inline std::vector<ReportColumn> spiking_columns(const SpikingPlan& plan) {
  std::vector<ReportColumn> c = {{"rtf", "real-time factor", "sig3"},
                                 {"synaptic_events_per_s", "synaptic events/s", "sig3"},
                                 {"uj_per_synaptic_event", "energy/event (uJ)", "sig3"}};
  for (const auto& p : plan.setup->populations) {
    c.push_back({"rate_hz_" + p.name, "rate " + p.name + " (Hz)", "sig3"});
    c.push_back({"isi_cv_" + p.name, "ISI CV " + p.name, "sig3"});
  }
  c.push_back({"identical_spikes", "identical spikes", "text"});
  c.push_back({"max_rate_diff_pct", "max rate diff", "pct"});
  c.push_back({"max_cv_diff_pct", "max CV diff", "pct"});
  return c;
}

inline double relative_pct(double a, double ref) {
  if (!std::isfinite(a) || !std::isfinite(ref)) return std::numeric_limits<double>::quiet_NaN();
  return ref != 0 ? 100.0 * std::fabs(a - ref) / std::fabs(ref) : (a == 0 ? 0.0 : 100.0);
}

// `is_reference`: the row is the reference run itself (no agreement to report).
inline std::vector<ReportValue> spiking_values(const SpikingPlan& plan, const RunResult& r, const RunResult& ref,
                                               bool is_reference) {
  const double bio_s = double(r.steps) * plan.dt_ms * 1e-3, events = r.figure("synaptic_events");
  std::vector<ReportValue> v = {ReportValue::num(bio_s > 0 ? r.simulate_s / bio_s : std::nan("")),
                                ReportValue::num(events / r.simulate_s),
                                ReportValue::num(events > 0 ? r.energy_j / events * 1e6 : std::nan(""))};
  for (std::size_t k = 0; k < plan.setup->populations.size(); ++k) {
    const bool has = k < r.populations.size();
    v.push_back(ReportValue::num(has ? r.populations[k].rate_hz : std::nan("")));
    v.push_back(ReportValue::num(has ? r.populations[k].isi_cv : std::nan("")));
  }
  const bool comparable = !is_reference && r.steps == ref.steps;
  double rate = std::nan(""), cv = std::nan("");
  if (comparable) {
    rate = cv = 0;
    for (std::size_t k = 0; k < r.populations.size() && k < ref.populations.size(); ++k) {
      rate = std::fmax(rate, relative_pct(r.populations[k].rate_hz, ref.populations[k].rate_hz));
      cv = std::fmax(cv, relative_pct(r.populations[k].isi_cv, ref.populations[k].isi_cv));
    }
  }
  v.push_back(ReportValue::str(comparable ? (r.events == ref.events ? "yes" : "no") : "n/a"));
  v.push_back(ReportValue::num(rate));
  v.push_back(ReportValue::num(cv));
  return v;
}

}  // namespace kbrain::point
