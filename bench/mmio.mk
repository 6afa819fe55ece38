# bench/mmio.mk: (filled in as the benchmark grows)
