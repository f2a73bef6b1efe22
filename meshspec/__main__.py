"""``python -m meshspec``."""

from .cli import main

main()
