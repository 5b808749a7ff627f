"""The tile stream look's command line: a set it cannot read is one line and exit 2."""

from gpusim.reporting.stream_look import main


def test_a_set_without_a_manifest_is_one_line_and_exit_2(capsys, tmp_path):
    assert main(["--profile", "h100-sxm5", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stream_look: error:") and err.count("\n") == 1
