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


@pytest.mark.parametrize("raw", ["0", "0.5", "3601"])
def test_the_llm_deadline_is_range_checked(raw):
    with pytest.raises(PaperTrailError, match="PAPERTRAIL_LLM_TIMEOUT must be between 1 and 3600"):
        Settings.from_env({"PAPERTRAIL_LLM_TIMEOUT": raw})
    assert Settings.from_env({"PAPERTRAIL_LLM_TIMEOUT": "900"}).llm_timeout == 900.0


def test_groq_base_url_alone_configures_an_llm():
    assert Settings.from_env({"GROQ_BASE_URL": "http://127.0.0.1:8080"}).llm_configured
    assert not Settings.from_env({}).llm_configured
