"""The ``gpusim`` command line: one Typer app, one module per command (see ``main.COMMANDS``)."""
