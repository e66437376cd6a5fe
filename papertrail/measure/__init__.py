"""The measuring tools: retrieval and answer evaluation, the verifier benchmark,
the LangChain baseline, the robustness check and the speed benchmark.

Instruments, not product: the pipeline never imports them. Each reads the
development corpus it is pointed at and prints measured figures.
"""
