"""Environment-variable fields: one declaration, one reader, one description for both configs."""

import dataclasses

from bot.config import BotConfig
from papertrail.envvars import describe, env_field, read_env
from papertrail.settings import Settings


@dataclasses.dataclass(frozen=True)
class Knobs:
    size: int = env_field(3, "KNOB_SIZE", "How big.")
    token: str = env_field("", "KNOB_TOKEN", "A secret.", secret=True)
    plain: str = "not from the environment"


def test_read_env_parses_set_values_and_skips_blank_ones():
    seen = []

    def parse(f, raw):
        seen.append((f.name, raw))
        return int(raw) if f.name == "size" else raw

    values = read_env(Knobs, {"KNOB_SIZE": " 7 ", "KNOB_TOKEN": "  ", "plain": "x"}, parse)
    assert values == {"size": 7}
    assert seen == [("size", "7")]  # stripped; the blank token never reaches the parser


def test_a_secret_field_stays_out_of_repr():
    assert "hunter2" not in repr(Knobs(token="hunter2"))
    assert "size=3" in repr(Knobs())


def test_describe_lists_only_the_environment_fields():
    assert describe(Knobs) == [("KNOB_SIZE", "3", "How big."), ("KNOB_TOKEN", "", "A secret.")]


def test_every_field_of_both_configs_is_described():
    for cls in (Settings, BotConfig):
        own = [f for f in dataclasses.fields(cls) if f.name != "settings"]
        rows = describe(cls)
        assert len(rows) == len(own), cls
        assert all(env and help_ for env, _, help_ in rows), cls
