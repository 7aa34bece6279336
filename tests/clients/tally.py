"""What the Python client scripts share: the tally of their checks, and the run of a
script's asynchronous main with the SDK's deprecation warnings silenced."""

import asyncio
import sys
import warnings

passed = 0
failed = 0


def check(ok, what):
    """Counts a check; a failed one is printed with what it checked."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", flush=True)


def summary(title):
    """Prints the tally under `title`; whether every check passed."""
    print(f"{title}: {passed} passed, {failed} failed", flush=True)
    return failed == 0


def run(main):
    """Runs `main()` and exits, 1 when it returned false."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ok = asyncio.run(main())
    sys.exit(0 if ok else 1)
