# precond/local.mk: the preconditioner interface, its registry and the preconditioners.
libspsolve_la_SOURCES += \
	%reldir%/precond.h \
	%reldir%/precond.c \
	%reldir%/jacobi.c
