"""The MkDocs side: macro registration, hooks, drawings, tables and page models."""
