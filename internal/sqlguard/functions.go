package sqlguard

import "strings"

// rule refuses calls to functions whose lower-cased name equals name, or
// starts with it when prefix is set. why completes "which ...".
type rule struct {
	name   string
	prefix bool
	why    string
}

// Functions with effects a read-only transaction does not contain. Names are
// matched case-insensitively on the last part of a qualified name, so
// pg_catalog.pg_advisory_lock(...) and "PG_ADVISORY_LOCK"(...) are caught.
var (
	postgresRules = []rule{
		{"pg_advisory_", true, "takes an advisory lock that outlives the query"},
		{"pg_try_advisory_", true, "takes an advisory lock that outlives the query"},
		{"pg_terminate_backend", false, "ends other sessions"},
		{"pg_cancel_backend", false, "cancels other sessions' queries"},
		{"pg_reload_conf", false, "reloads the server configuration"},
		{"pg_rotate_logfile", false, "rotates the server log"},
		{"pg_switch_wal", false, "forces a WAL switch"},
		{"pg_promote", false, "promotes a standby server"},
		{"pg_log_backend_memory_contexts", false, "writes to the server log"},
		{"pg_stat_reset", true, "resets server statistics"},
		{"pg_wal_replay_", true, "controls WAL replay"},
		{"pg_backup_", true, "controls server backups"},
		{"pg_start_backup", false, "controls server backups"},
		{"pg_stop_backup", false, "controls server backups"},
		{"pg_create_", true, "creates replication slots or restore points"},
		{"pg_drop_replication_slot", false, "drops a replication slot"},
		{"pg_copy_", true, "copies a replication slot"},
		{"pg_logical_", true, "reads or writes logical replication data"},
		{"pg_replication_", true, "changes replication state"},
		{"pg_read_", true, "reads files on the database server"},
		{"pg_ls_", true, "lists directories on the database server"},
		{"pg_stat_file", false, "reads file metadata on the database server"},
		{"pg_file_", true, "writes files on the database server"},
		{"pg_import_system_collations", false, "writes the system catalog"},
		{"lo_", true, "reads, writes or imports large objects and server files"},
		{"dblink", true, "runs SQL over another connection, outside the read-only transaction"},
		{"query_to_xml", true, "runs a SQL string the guard cannot see"},
		{"cursor_to_xml", true, "runs a SQL string the guard cannot see"},
		{"set_config", false, "changes session settings such as the statement timeout"},
		{"pg_notify", false, "sends notifications to other sessions"},
		{"nextval", false, "advances a sequence (not undone by a rollback)"},
		{"setval", false, "sets a sequence (not undone by a rollback)"},
	}
	duckdbRules = []rule{
		{"query", false, "runs a SQL string the guard cannot see"},
		{"json_execute_serialized_sql", false, "runs serialized SQL the guard cannot see"},
		{"checkpoint", false, "writes the database file"},
		{"force_checkpoint", false, "writes the database file"},
		{"enable_logging", false, "changes the database configuration"},
		{"disable_logging", false, "changes the database configuration"},
		{"truncate_duckdb_logs", false, "changes the database's logs"},
	}
	snowflakeRules = []rule{
		{"system$cancel", true, "cancels queries"},
		{"system$abort", true, "aborts sessions or transactions"},
	}
)

// duckdbTableFunctions is the allow-list of DuckDB table functions (and
// table macros) that only read: a call in a FROM position to any other is
// refused. DuckDB's table functions include some that change the session
// for every later query on the connection and bypass lock_configuration:
// enable_profiling (which also writes its output to any path),
// enable_peg_parser, enable_logging, checkpoint. An allow-list keeps a new
// DuckDB release's or a loaded extension's function out until someone reads
// what it does. The list was made from DuckDB 1.5's duckdb_functions()
// (function_type 'table' and 'table_macro').
var duckdbTableFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(`
		range generate_series unnest repeat repeat_row glob
		read_csv read_csv_auto sniff_csv read_text read_blob
		read_parquet parquet_scan parquet_metadata parquet_schema parquet_file_metadata
		parquet_kv_metadata parquet_full_metadata parquet_bloom_probe
		read_json read_json_auto read_json_objects read_json_objects_auto
		read_ndjson read_ndjson_auto read_ndjson_objects json_each json_tree
		duckdb_columns duckdb_constraints duckdb_databases duckdb_dependencies duckdb_extensions
		duckdb_functions duckdb_indexes duckdb_keywords duckdb_schemas duckdb_sequences
		duckdb_settings duckdb_tables duckdb_types duckdb_views duckdb_optimizers
		duckdb_memory duckdb_temporary_files duckdb_approx_database_count
		duckdb_coordinate_systems duckdb_table_sample
		pragma_table_info pragma_show pragma_storage_info pragma_database_size
		pragma_collations pragma_metadata_info pragma_platform pragma_version
		pg_timezone_names icu_calendar_names histogram histogram_values
		test_all_types test_vector_types
		st_read read_xlsx delta_scan iceberg_scan iceberg_metadata iceberg_snapshots`) {
		m[f] = true
	}
	return m
}()

// rulesFor returns the function rules of a dialect; a dialect without its
// own list (generic, or one not listed) gets every list.
func rulesFor(dialect string) []rule {
	switch dialect {
	case "postgres", "redshift":
		return postgresRules
	case "duckdb":
		return duckdbRules
	case "snowflake":
		return snowflakeRules
	case "bigquery", "databricks", "spark", "trino":
		return nil
	}
	all := append(append(append([]rule(nil), postgresRules...), duckdbRules...), snowflakeRules...)
	return all
}

func match(rules []rule, name string) (rule, bool) {
	n := strings.ToLower(name)
	for _, r := range rules {
		if n == r.name || r.prefix && strings.HasPrefix(n, r.name) {
			return r, true
		}
	}
	return rule{}, false
}
