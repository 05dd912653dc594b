"""The behavioural suite every engine must pass; its public Hypothesis
strategies live in `tinymemory.conformance.strategies`."""
