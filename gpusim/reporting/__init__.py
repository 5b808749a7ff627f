"""``gpusim report``: figures and tables that answer the seeds' questions, rebuilt reproducibly.

One module per figure (``fig_*``), each a :class:`~gpusim.reporting.figure.Figure`
that lists the simulations it needs, builds its data, draws its PNG and says in
two sentences what it shows; :mod:`gpusim.reporting.report_runner` runs them all.
"""

from gpusim.reporting.report_runner import Report, build_report

__all__ = ["Report", "build_report"]
