# bench/spmv.mk: (filled in as the benchmark grows)
