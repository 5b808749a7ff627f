"""One ``git_commit`` for every record: the driver's variable wins, else git."""

from gpusim.source_commit import git_commit


def test_the_driver_variable_wins(monkeypatch):
    monkeypatch.setenv("GPUSIM_COMMIT", "abc123")
    assert git_commit() == "abc123"


def test_the_older_variable_is_read_too(monkeypatch):
    monkeypatch.delenv("GPUSIM_COMMIT", raising=False)
    monkeypatch.setenv("GPUSIM_GIT_COMMIT", "def456")
    assert git_commit() == "def456"


def test_without_variables_git_answers(monkeypatch):
    monkeypatch.delenv("GPUSIM_COMMIT", raising=False)
    monkeypatch.delenv("GPUSIM_GIT_COMMIT", raising=False)
    commit = git_commit()
    assert commit == "unknown" or len(commit.removesuffix("+dirty")) == 40
