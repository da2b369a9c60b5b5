# The README's two commands, plus the pieces CI runs. `pip install uv` first on a fresh machine.
.PHONY: demo test lint types schemas ci

demo:
	uv run ctx demo

test:
	uv run pytest

lint:
	uv run ruff check .
	uv run ruff format --check .

types:
	uv run mypy contracts/src packages/core/src packages/*/*/src

schemas:
	uv run python -m ctxops_contracts.schemas --write

ci:
	bash .ci/run
