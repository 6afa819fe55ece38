# solvers/local.mk: (filled in as the folder grows)
