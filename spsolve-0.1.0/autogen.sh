#!/bin/sh
# autogen.sh: makes configure and Makefile.in from a git checkout (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
# Autoconf's scripts delete a core dump named "core" after each test; here core/ is a source
# folder, so that `rm -f core` fails, prints a message and (in configure's exit trap) skips
# the removal of confdefs.h. Leave "core" out of those commands.
sed -e 's/rm -f core /rm -f /' configure > configure.tmp && mv configure.tmp configure
chmod +x configure
