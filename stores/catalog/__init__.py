"""The tool catalog: the tool model, validation, enrichment, dependency graph, ingestion."""
