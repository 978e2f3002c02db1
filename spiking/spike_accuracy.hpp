#pragma once
// Accuracy of a spike train against a reference run of the same network (cortex_hh numerical methods,
// docs/models/cortex-hh.md): spike times matched per neuron, rates, and the population rhythm.
#include <cstdint>
#include <utility>
#include <vector>

namespace kbrain::spiking {

struct TimedSpike {
  double t_ms;
  std::int64_t neuron;
};

// (steps done, neuron) -> (time in ms, neuron): a spike detected in step s (1-based count) is at s * dt.
std::vector<TimedSpike> to_times(const std::vector<std::pair<std::int64_t, std::int64_t>>& events, double dt_ms);

struct SpikeMatch {
  std::int64_t reference = 0, test = 0, matched = 0;
  double mean_abs_ms = 0, median_abs_ms = 0, p95_abs_ms = 0, max_abs_ms = 0;  // over matched pairs
};

// Per neuron, the two sorted trains are matched greedily in time order (two pointers): a pair matches when
// |t_test - t_ref| <= window_ms; unmatched spikes of either run are left out of the time errors.
SpikeMatch match_spikes(const std::vector<TimedSpike>& reference, const std::vector<TimedSpike>& test,
                        std::int64_t neurons, double window_ms);

// Population rate in bins of bin_ms over [t0, t1) (Hz per neuron).
std::vector<double> population_rate(const std::vector<TimedSpike>& spikes, std::int64_t neurons, double t0_ms,
                                    double t1_ms, double bin_ms);

// Frequency (Hz) of the largest peak of the Hann-windowed power spectrum of `rate` (mean removed) between f_lo and
// f_hi, evaluated every df Hz by direct DFT (finer than 1/T: the peak is interpolated by the zero-padding this is
// equivalent to). Returns 0 if the signal is flat.
double spectral_peak_hz(const std::vector<double>& rate, double bin_ms, double f_lo, double f_hi, double df,
                        double* peak_power = nullptr);

}  // namespace kbrain::spiking
