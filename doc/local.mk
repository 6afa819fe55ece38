# doc/local.mk: the manual page of the spsolve command, installed and distributed.
dist_man_MANS = %reldir%/spsolve.1
