#!/usr/bin/env python3
"""Fails when a line of the notes does not start with a dash."""
import sys

bad = [l for l in open(sys.argv[1]) if l.strip() and not l.startswith(("-", "#"))]
sys.exit(1 if bad else 0)
