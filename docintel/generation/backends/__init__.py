"""The model and test backends: ``openai`` (any OpenAI-compatible endpoint), ``local``
(llama-cpp-python), ``fake`` (scripted), and the ``--fallback offline`` wrapper.
Each imports its SDK lazily; the registry builds them by name."""
