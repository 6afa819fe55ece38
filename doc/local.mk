# doc/local.mk: the manual page of the spsolve command (installed) and the design and performance notes (distributed).
dist_man_MANS = %reldir%/spsolve.1
EXTRA_DIST += %reldir%/design.md
EXTRA_DIST += %reldir%/performance.md
EXTRA_DIST += %reldir%/convergence-orsreg_1.png
EXTRA_DIST += %reldir%/reliability.md
EXTRA_DIST += %reldir%/scaling-gpus.png
