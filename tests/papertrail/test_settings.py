from pathlib import Path

import pytest

from papertrail.errors import PaperTrailError
from papertrail.settings import Settings, describe


def test_defaults_without_environment():
    s = Settings.from_env({})
    assert s.chunk_size == 800 and s.chunk_overlap == 100 and s.top_k == 5
    assert s.max_pdf_bytes == 50_000_000 and s.max_pages == 1000
    assert not s.llm_configured


def test_environment_is_parsed_into_types():
    s = Settings.from_env(
        {
            "PAPERTRAIL_DATA_DIR": "/tmp/x",
            "PAPERTRAIL_TOP_K": "8",
            "PAPERTRAIL_OCR": "no",
            "GROQ_API_KEY": "gsk_test",
            "PAPERTRAIL_MAX_PDF_MB": "2.5",
        }
    )
    assert s.data_dir == Path("/tmp/x") and s.top_k == 8 and s.ocr is False
    assert s.llm_configured and s.max_pdf_bytes == 2_500_000


@pytest.mark.parametrize(
    ("var", "value"),
    [("PAPERTRAIL_TOP_K", "many"), ("PAPERTRAIL_OCR", "perhaps"), ("PAPERTRAIL_MAX_PAGES", "-3")],
)
def test_malformed_values_name_the_variable(var, value):
    with pytest.raises(PaperTrailError) as e:
        Settings.from_env({var: value})
    assert var in e.value.message and e.value.code == "config"


def test_every_field_is_described():
    rows = describe()
    assert len(rows) == len(Settings.__dataclass_fields__)
    assert all(env and help_ for env, _, help_ in rows)


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("PAPERTRAIL_TOP_K", "0"),
        ("PAPERTRAIL_TOP_K", "100000"),
        ("PAPERTRAIL_CHUNK_SIZE", "5"),
        ("PAPERTRAIL_MAX_PDF_MB", "0"),
        ("PAPERTRAIL_LLM_TIMEOUT", "0"),
        ("PAPERTRAIL_MAX_CONCURRENT_INDEXING", "0"),
        ("PAPERTRAIL_RENDER_ZOOM", "100"),
        ("CHROMA_PORT", "70000"),
    ],
)
def test_numbers_out_of_range_are_refused_with_the_range(var, value):
    with pytest.raises(PaperTrailError) as e:
        Settings.from_env({var: value})
    assert f"{var}={value} is out of range" in e.value.message and e.value.code == "config"


def test_every_numeric_setting_has_a_range_that_holds_its_default():
    import dataclasses

    from papertrail.settings import RANGES

    numeric = {
        f.name: f.default for f in dataclasses.fields(Settings) if type(f.default) in (int, float)
    }
    assert set(numeric) == set(RANGES)
    for name, default in numeric.items():
        low, high = RANGES[name]
        assert low <= default <= high, name


def test_an_overlap_as_long_as_the_chunk_is_refused():
    with pytest.raises(PaperTrailError, match="PAPERTRAIL_CHUNK_OVERLAP"):
        Settings.from_env({"PAPERTRAIL_CHUNK_SIZE": "200", "PAPERTRAIL_CHUNK_OVERLAP": "200"})


@pytest.mark.parametrize("raw", ["0", "0.5", "3601"])
def test_the_llm_deadline_is_range_checked(raw):
    with pytest.raises(
        PaperTrailError,
        match=r"PAPERTRAIL_LLM_TIMEOUT=\S+ is out of range: use a number from 1 to 3600",
    ):
        Settings.from_env({"PAPERTRAIL_LLM_TIMEOUT": raw})
    assert Settings.from_env({"PAPERTRAIL_LLM_TIMEOUT": "900"}).llm_timeout == 900.0


def test_groq_base_url_alone_configures_an_llm():
    assert Settings.from_env({"GROQ_BASE_URL": "http://127.0.0.1:8080"}).llm_configured
    assert not Settings.from_env({}).llm_configured
