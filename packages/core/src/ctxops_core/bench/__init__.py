"""`ctx bench`: the same agent on the same tasks, with and without each ctxops line, priced by the ledger."""
