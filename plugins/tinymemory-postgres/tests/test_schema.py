"""The schema: created and versioned by the engine, a newer one refused, one per memory."""

from __future__ import annotations

import threading

import psycopg
import pytest
from psycopg import sql

import tinymemory as tm
from tinymemory import retrieval as kit
from tinymemory.plugin import embedders
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.cluster import ThrowawayCluster
from tinymemory_postgres.dialect import POSTGRES
from tinymemory_postgres.schema import MIGRATIONS, VERSION


def _sql(cluster: ThrowawayCluster, statement: str) -> list[tuple[object, ...]]:
    with psycopg.connect(cluster.socket_conninfo, autocommit=True) as connection:
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else []


def test_a_new_schema_is_created_at_this_version(
    engine: PostgresEngine, cluster: ThrowawayCluster, schema: str
) -> None:
    assert _sql(cluster, f"SELECT version FROM {schema}.schema_version") == [(VERSION,)]
    indexes = _sql(cluster, f"SELECT indexdef FROM pg_indexes WHERE schemaname = '{schema}'")
    assert any("USING gin (words)" in str(row[0]) for row in indexes)
    unique = _sql(
        cluster,
        "SELECT count(*) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
        f"WHERE n.nspname = '{schema}' AND c.contype = 'u' "
        "AND c.conrelid = (SELECT oid FROM pg_class WHERE relname = 'items' "
        f"AND relnamespace = n.oid)",
    )
    assert unique == [(1,)], "the fingerprint is unique in the table"


def test_a_newer_schema_is_refused(settings: tm.EngineSettings, cluster: ThrowawayCluster) -> None:
    tm.build_engine("postgres", settings).close()
    schema = settings.options["schema"]
    _sql(cluster, f"UPDATE {schema}.schema_version SET version = {VERSION + 1}")
    with pytest.raises(tm.ConfigError, match=f"version {VERSION + 1}, newer"):
        tm.build_engine("postgres", settings)


def test_reopening_keeps_the_memory(settings: tm.EngineSettings) -> None:
    with tm.build_engine("postgres", settings) as engine:
        engine.store(tm.Learning(text="kept across engines"))
    with tm.build_engine("postgres", settings) as engine:
        assert [hit.text for hit in engine.list(tm.ListRequest()).items] == ["kept across engines"]


def test_memories_in_two_schemas_of_one_database_are_apart(cluster: ThrowawayCluster) -> None:
    def build(schema: str) -> tm.MemoryEngine:
        options = {"conninfo": cluster.socket_conninfo, "schema": schema}
        return tm.build_engine("postgres", tm.EngineSettings(options=options))

    with build("team_a") as first, build("team_b") as second:
        first.store(tm.Learning(text="team a's deploy notes"))
        assert second.list(tm.ListRequest()).items == ()
        assert second.fetch(tm.FetchRequest(query="deploy")).hits == ()
        assert len(first.list(tm.ListRequest()).items) == 1


def test_engines_opening_one_new_schema_at_once_create_it_once(
    settings: tm.EngineSettings,
) -> None:
    built: list[tm.MemoryEngine] = []
    failures: list[BaseException] = []

    def open_one() -> None:
        try:
            built.append(tm.build_engine("postgres", settings))
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for engine in built:
        engine.close()
    assert failures == []
    assert len(built) == 4


def test_a_schema_keeps_its_embedder(settings: tm.EngineSettings) -> None:
    class Other:
        name = "other"
        dimensions = 8

        def embed(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] * 8 for _ in texts]

    from tinymemory_postgres.settings import ServerSettings

    server = ServerSettings.from_options(settings.options)
    with tm.build_engine("postgres", settings) as engine:
        stored = engine.store(tm.Learning(text="a vector of the hashing embedder")).id
    refused = r"embedder `hashing:256`, not `other:8`; run `tinymemory reindex`"
    with PostgresEngine(server, tm.EngineCredential.none(), embedder=Other()) as other:
        # What would mix vectors of the two is refused; what reads no vector still works.
        for mode in (tm.FetchMode.VECTOR, tm.FetchMode.HYBRID):
            with pytest.raises(tm.ConfigError, match=refused):
                other.fetch(tm.FetchRequest(query="vector", mode=mode))
        with pytest.raises(tm.ConfigError, match=refused):
            other.recall(tm.RecallRequest(question="which embedder?"))
        with pytest.raises(tm.ConfigError, match='open it with embedder = "hashing"'):
            other.store(tm.Learning(text="eight ones"))
        keyword = other.fetch(tm.FetchRequest(query="vector", mode=tm.FetchMode.KEYWORD))
        assert [hit.id for hit in keyword.hits] == [stored]


def test_a_user_who_may_not_create_schemas_opens_an_existing_one(
    settings: tm.EngineSettings, cluster: ThrowawayCluster
) -> None:
    schema = settings.options["schema"]
    tm.build_engine("postgres", settings).close()
    _sql(cluster, "CREATE ROLE agent LOGIN")
    _sql(cluster, f"GRANT USAGE ON SCHEMA {schema} TO agent")
    _sql(cluster, f"GRANT ALL ON ALL TABLES IN SCHEMA {schema} TO agent")
    _sql(cluster, f"GRANT ALL ON ALL SEQUENCES IN SCHEMA {schema} TO agent")
    _sql(cluster, "REVOKE CREATE ON DATABASE postgres FROM PUBLIC")
    as_agent = tm.EngineSettings(options={**settings.options, "user": "agent"})
    with tm.build_engine("postgres", as_agent) as engine:
        engine.store(tm.Learning(text="written by a user without CREATE"))
        assert len(engine.list(tm.ListRequest()).items) == 1
    other = tm.EngineSettings(options={**as_agent.options, "schema": f"{schema}_new"})
    with pytest.raises(tm.ConfigError, match="permission denied"):
        tm.build_engine("postgres", other)


def test_a_version_1_schema_is_migrated_with_its_vectors(
    settings: tm.EngineSettings, cluster: ThrowawayCluster, schema: str
) -> None:
    """Version 1 kept vectors (and text) in ``pieces``; its items are found the same after."""
    item = tm.Learning(text="the crane lifts steel beams")
    prepared = kit.Prepared.of(item)
    vector = kit.embedding_matrix(embedders()["hashing"], [item.text])[0]
    namespace = item.meta.namespace
    with psycopg.connect(cluster.socket_conninfo, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        connection.execute(f"SET search_path = {schema}")
        connection.execute("CREATE TABLE schema_version (version integer NOT NULL)")
        connection.execute(sql.SQL(MIGRATIONS[1]).format(s=sql.Identifier(schema)))
        connection.execute("INSERT INTO schema_version VALUES (1)")
        connection.execute(
            "INSERT INTO nodes(path, depth, last_service) VALUES (%s, %s, %s)",
            (str(namespace), namespace.depth, kit.last_service(namespace)),
        )
        columns = kit.item_columns(prepared.id, item, prepared.body, POSTGRES)
        connection.execute(
            f"INSERT INTO items(seq, node, {', '.join(kit.ITEM_COLUMNS)}) "
            f"VALUES (1, 1, {', '.join(['%s'] * len(columns))})",
            columns,
        )
        connection.execute(
            "INSERT INTO pieces(item, start, length, text, words, tokens, vector) "
            "VALUES (1, 0, %s, %s, to_tsvector('simple', %s), 5, %s)",
            (len(item.text), item.text, item.text, vector.tobytes()),
        )
        connection.execute("INSERT INTO node_sizes VALUES (1, 'learning', 1, 5)")
    with tm.build_engine("postgres", settings, scrub=False) as engine:
        for mode in tm.FetchMode:
            hits = engine.fetch(tm.FetchRequest(query="steel crane", mode=mode)).hits
            assert [(hit.id, hit.text) for hit in hits] == [(prepared.id, item.text)]
    assert _sql(cluster, f"SELECT version FROM {schema}.schema_version") == [(VERSION,)]
    assert _sql(cluster, f"SELECT piece, vector FROM {schema}.vectors") == [(1, vector.tobytes())]
