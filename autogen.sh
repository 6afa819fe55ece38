#!/bin/sh
# autogen.sh: makes configure and Makefile.in from a git checkout (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
