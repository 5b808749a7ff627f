"""The ``gpusim`` console script: registers the command modules and turns errors into one line.

To add a command, write ``gpusim/cli/commands/<name>.py`` with an ``@app.command()``
function and add its module name to :data:`COMMANDS`.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from pydantic import ValidationError
from typer.main import get_command

from gpusim.cli.app import app
from gpusim.errors import GpusimError

#: Command modules under ``gpusim.cli.commands``, in --help order.
COMMANDS: tuple[str, ...] = (
    "profiles",
    "algorithms",
    "verify",
    "count",
    "simulate",
    "tune",
    "calibrate",
    "kernel",
    "validate",
    "report",
    "explore",
)

#: Exit status of bad input (unknown names, malformed numbers, impossible schedules).
EXIT_USAGE = 2
#: Exit status of an unexpected failure inside gpusim (a bug); GPUSIM_DEBUG=1 shows the traceback.
EXIT_INTERNAL = 3

try:  # Typer >= 0.20 vendors click; older Typer uses click itself
    from typer._click.exceptions import ClickException as _CliError
    from typer._click.exceptions import NoArgsIsHelpError as _NoArgs
except ImportError:  # pragma: no cover - depends on the installed Typer
    from click.exceptions import ClickException as _CliError  # type: ignore[no-redef]
    from click.exceptions import NoArgsIsHelpError as _NoArgs  # type: ignore[no-redef]


def register_commands(argv: Sequence[str] | None = None) -> None:
    """Import the module of the command ``argv`` names, or every module in :data:`COMMANDS`
    (no command named, or one that is not there: ``--help`` and the error list them all).

    One module only where that is enough: a command's start-up need not import the others
    (``calibrate`` alone brings numpy's statistics and the calibration code, a tenth of a
    second of ``gpusim simulate``'s second). The root callback keeps the app a group, so
    one registered command is still called by its name."""
    first = next((a for a in argv or () if not a.startswith("-")), None)
    for name in (first,) if first in COMMANDS else COMMANDS:
        importlib.import_module(f"gpusim.cli.commands.{name}")


#: The Click command Typer builds from :data:`app`, by the registrations it was built from.
_built: dict[tuple, object] = {}


def _click_command():
    """``typer.main.get_command(app)``, built once per set of registered commands.

    ``app(...)`` builds the whole Click group again on every call (every option of every
    command read back from its signature); the in-process CLI tests call :func:`run` over a
    thousand times, and the rebuilds were a quarter of their time. The group keeps no state
    between calls (each call makes its own context), and with pretty exceptions off the
    excepthook Typer's ``__call__`` installs is Python's own, so calling the built group is
    calling ``app``.
    """
    key = (
        tuple(map(id, app.registered_commands)),
        tuple(map(id, app.registered_groups)),
        id(app.registered_callback),
    )
    command = _built.get(key)
    if command is None:
        _built.clear()
        command = _built[key] = get_command(app)
    return command


def _fail(message: str, code: int) -> int:
    # One line: collapse any newlines a library message may carry.
    line = " ".join(str(message).split()).replace("Value error, ", "")
    sys.stderr.write(f"gpusim: error: {line}\n")
    return code


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    from gpusim.profiles.loader import validation_summary

    try:
        register_commands(list(argv) if argv is not None else sys.argv[1:])
        rv = _click_command()(
            args=list(argv) if argv is not None else None, prog_name="gpusim", standalone_mode=False
        )
    except _NoArgs as e:
        sys.stdout.write(e.format_message() + "\n")
        return 0
    except _CliError as e:  # usage errors: unknown option, malformed or out-of-range number
        return _fail(e.format_message(), EXIT_USAGE if e.exit_code == 2 else e.exit_code or 1)
    except GpusimError as e:
        return _fail(str(e), EXIT_USAGE)
    except ValidationError as e:
        return _fail(validation_summary(e), EXIT_USAGE)
    except FileNotFoundError as e:
        return _fail(f"file not found: {e.filename or e}", EXIT_USAGE)
    except OSError as e:
        return _fail(f"{e.strerror or e}: {e.filename}" if e.filename else str(e), EXIT_USAGE)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Exception as e:  # a bug: still one line unless asked for the traceback
        if os.environ.get("GPUSIM_DEBUG"):
            raise
        return _fail(
            f"internal error: {type(e).__name__}: {e} (GPUSIM_DEBUG=1 shows the traceback)",
            EXIT_INTERNAL,
        )
    if rv == 130:  # Typer turns Ctrl-C into a silent exit status 130; say why we stopped
        return _fail("interrupted", 130)
    return rv if isinstance(rv, int) else 0


def main() -> None:
    """Console-script entry point: ``gpusim = gpusim.cli.main:main``."""
    sys.exit(run())


if __name__ == "__main__":
    main()
