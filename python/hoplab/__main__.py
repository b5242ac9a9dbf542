"""`python -m hoplab` is the `hoplab` command."""

from hoplab.command import main

if __name__ == "__main__":
    main()
