"""One module per ``gpusim`` command; each registers itself on :data:`gpusim.cli.app.app`."""
