#pragma once
// External Poisson drive as a count per neuron and step (NEST's poisson_generator into many targets, Brian2's
// PoissonInput): neuron i receives k ~ Poisson(lambda_i) spikes of weight w_i in step n, lambda_i = in-degree *
// rate * dt, added to the excitatory arrivals the neuron reads in step n. One draw per neuron and step stands for
// K independent sources; several spikes per step are possible (PD14 needs 1.2-2.3 per step).
// k is found by inversion on one uniform keyed on (seed, neuron, step): the cumulative sum of e^-lambda lambda^j / j!
// in double, each product and sum rounded on its own (spelled unfused on the device), so every backend draws the
// same counts. The sum is stopped at 256 terms (Poisson tails of the rates a network is driven with are far below).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "spiking/counter_draws.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::spiking {

KBRAIN_HOST_DEVICE inline double mul_unfused(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
KBRAIN_HOST_DEVICE inline double add_unfused(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// The count of Poisson(lambda) for uniform u in [0, 1), given e^-lambda.
KBRAIN_HOST_DEVICE inline int poisson_count(double u, double lambda, double exp_minus_lambda) {
  double p = exp_minus_lambda, cdf = p;
  int k = 0;
  while (u >= cdf && k < 256) {
    ++k;
    p = mul_unfused(p, lambda / static_cast<double>(k));
    cdf = add_unfused(cdf, p);
  }
  return k;
}

// Before the neurons of a step: adds k * weight (fixed point) to each driven neuron's excitatory slot of the step.
template <class Mem>
struct PoissonCountDrive {
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  Kokkos::View<const double*, Mem> lambda, exp_minus_lambda;  // per neuron (lambda 0: not driven)
  Kokkos::View<const long long*, Mem> weight;                 // per neuron, fixed point of receptor 0
  int slots = 1, receptors = 2;
  std::uint64_t key = 0;                                      // stream_key(seed, Purpose::PoissonCount)
  StepClock<Mem> clock;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const double l = lambda(i);
    if (l == 0.0) return;
    const int step = clock.first_kernel_step();
    const double u = counter_uniform(key, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(step));
    const int k = poisson_count(u, l, exp_minus_lambda(i));
    if (k != 0) ring((step % slots) * receptors, i) += static_cast<long long>(k) * weight(i);
  }
};

}  // namespace kbrain::spiking
