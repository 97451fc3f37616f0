"""``python -m tddforge``."""

from tddforge.cli import main

if __name__ == "__main__":
    main()
