"""``python -m surveygraph``: the same command line as the ``surveygraph`` script."""

from .cli import main

if __name__ == "__main__":
    main()
