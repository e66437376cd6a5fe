"""The one offline environment block: fills in defaults, never overrides."""

from papertrail.offline import OFFLINE_ENV, offline_env


def test_fills_in_every_variable_of_an_empty_environment():
    env = offline_env({})
    assert env["HF_HUB_OFFLINE"] == "1"
    assert env["ANONYMIZED_TELEMETRY"] == "False"
    assert env == OFFLINE_ENV


def test_a_value_already_set_wins():
    env = offline_env({"HF_HUB_OFFLINE": "0", "PATH": "/bin"})
    assert env["HF_HUB_OFFLINE"] == "0"
    assert env["PATH"] == "/bin"
    assert env["TRANSFORMERS_OFFLINE"] == "1"
