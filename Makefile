# The pieces CI runs. On a fresh machine the README's `./dev demo` / `./dev test` install uv first.
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
