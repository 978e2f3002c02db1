#pragma once
// AdexExchange over MPI (include only in code built with MPI): the block sums by one allgatherv in rank order (the
// ranks hold consecutive blocks), the column winners by one allreduce whose operation keeps the larger row.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "models/adex_costa/adex_exchange.hpp"

namespace kbrain::adex {

class MpiAdexExchange final : public AdexExchange {
 public:
  explicit MpiAdexExchange(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair_);
    MPI_Type_commit(&pair_);
    MPI_Op_create(&larger_row, 1, &op_);
  }
  ~MpiAdexExchange() override {
    MPI_Op_free(&op_);
    MPI_Type_free(&pair_);
  }
  MpiAdexExchange(const MpiAdexExchange&) = delete;
  MpiAdexExchange& operator=(const MpiAdexExchange&) = delete;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  void gather_blocks(const double* sums, const long long* counts, std::int64_t blocks, std::vector<double>& all_sums,
                     std::vector<long long>& all_counts) override {
    const int mine = static_cast<int>(blocks);
    sizes_.resize(ranks_);
    offsets_.assign(ranks_, 0);
    MPI_Allgather(&mine, 1, MPI_INT, sizes_.data(), 1, MPI_INT, comm_);
    for (int r = 1; r < ranks_; ++r) offsets_[r] = offsets_[r - 1] + sizes_[r - 1];
    const int total = offsets_[ranks_ - 1] + sizes_[ranks_ - 1];
    all_sums.resize(static_cast<std::size_t>(total));
    all_counts.resize(static_cast<std::size_t>(total));
    MPI_Allgatherv(sums, mine, MPI_DOUBLE, all_sums.data(), sizes_.data(), offsets_.data(), MPI_DOUBLE, comm_);
    MPI_Allgatherv(counts, mine, MPI_LONG_LONG, all_counts.data(), sizes_.data(), offsets_.data(), MPI_LONG_LONG, comm_);
  }

  // (row, current) pairs as two doubles: rows below 2^53 are exact in a double.
  void reduce_winners(long long* rows, double* currents, std::int64_t columns) override {
    pairs_.resize(2 * static_cast<std::size_t>(columns));
    for (std::int64_t j = 0; j < columns; ++j) {
      pairs_[2 * j] = double(rows[j]);
      pairs_[2 * j + 1] = currents[j];
    }
    MPI_Allreduce(MPI_IN_PLACE, pairs_.data(), static_cast<int>(columns), pair_, op_, comm_);
    for (std::int64_t j = 0; j < columns; ++j) {
      rows[j] = static_cast<long long>(pairs_[2 * j]);
      currents[j] = pairs_[2 * j + 1];
    }
  }

 private:
  static void larger_row(void* in, void* inout, int* len, MPI_Datatype*) {
    const double* a = static_cast<const double*>(in);
    double* b = static_cast<double*>(inout);
    for (int k = 0; k < *len; ++k)
      if (a[2 * k] > b[2 * k]) {
        b[2 * k] = a[2 * k];
        b[2 * k + 1] = a[2 * k + 1];
      }
  }

  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  MPI_Datatype pair_;
  MPI_Op op_;
  std::vector<int> sizes_, offsets_;  // reused every step
  std::vector<double> pairs_;
};

}  // namespace kbrain::adex
