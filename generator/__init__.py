"""Build rules-reference sites for tabletop wargames from YAML data and Markdown prose.

Data flows one way: load (with source positions) → model → check → render → MkDocs.
"""

__version__ = "0.1.0"
