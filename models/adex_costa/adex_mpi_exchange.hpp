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

  void gather_blocks(const std::vector<double>& sums, const std::vector<long long>& counts,
                     std::vector<double>& all_sums, std::vector<long long>& all_counts) override {
    const int mine = static_cast<int>(sums.size());
    std::vector<int> sizes(ranks_), offsets(ranks_, 0);
    MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_);
    for (int r = 1; r < ranks_; ++r) offsets[r] = offsets[r - 1] + sizes[r - 1];
    const int total = offsets[ranks_ - 1] + sizes[ranks_ - 1];
    all_sums.resize(static_cast<std::size_t>(total));
    all_counts.resize(static_cast<std::size_t>(total));
    MPI_Allgatherv(sums.data(), mine, MPI_DOUBLE, all_sums.data(), sizes.data(), offsets.data(), MPI_DOUBLE, comm_);
    MPI_Allgatherv(counts.data(), mine, MPI_LONG_LONG, all_counts.data(), sizes.data(), offsets.data(), MPI_LONG_LONG,
                   comm_);
  }

  // (row, current) pairs as two doubles: rows below 2^53 are exact in a double.
  void reduce_winners(std::vector<long long>& rows, std::vector<double>& currents) override {
    std::vector<double> pairs(2 * rows.size());
    for (std::size_t j = 0; j < rows.size(); ++j) {
      pairs[2 * j] = double(rows[j]);
      pairs[2 * j + 1] = currents[j];
    }
    MPI_Allreduce(MPI_IN_PLACE, pairs.data(), static_cast<int>(rows.size()), pair_, op_, comm_);
    for (std::size_t j = 0; j < rows.size(); ++j) {
      rows[j] = static_cast<long long>(pairs[2 * j]);
      currents[j] = pairs[2 * j + 1];
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
};

}  // namespace kbrain::adex
