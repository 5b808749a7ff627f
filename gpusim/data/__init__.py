"""Where the recorded measurements live: ``data/<gpu>/<date>_<what>/``, each with a manifest."""
