"""The engines: where a store's rows live, a sqlite file (or memory) or a PostgreSQL database, knowing no store.

Each store declares its own tables (a Layout); database.py opens a sqlite file for it, postgres_database.py a
schema of a PostgreSQL database (imported, with its driver, only for a postgresql:// URL), and opening.py chooses
between them for every store's connect().
"""
