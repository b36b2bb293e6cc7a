"""`python -m orcodec`: the command line (see orcodec._cli)."""

from ._cli import console_main

console_main()
