package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// privilegeQuery reads what the login role can do beyond reading. BEGIN READ
// ONLY does not contain a superuser (pg_read_file, replication slots that
// survive a rollback, dblink_exec), and a role with write grants is one bug
// away from writing; both are worth a warning.
const privilegeQuery = `WITH writable AS (
  SELECT n.nspname || '.' || c.relname AS name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
    AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
    AND (has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE')
      OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE'))
  ORDER BY 1 LIMIT 1001)
SELECT current_user::text, r.rolsuper, r.rolreplication, r.rolcreaterole, r.rolbypassrls,
  ARRAY(SELECT b.rolname::text FROM pg_roles b
    WHERE b.rolname IN ('pg_write_all_data', 'pg_write_server_files', 'pg_read_server_files',
                        'pg_execute_server_program', 'pg_signal_backend')
      AND pg_has_role(current_user, b.oid, 'USAGE') ORDER BY 1),
  (SELECT count(*) FROM writable),
  ARRAY(SELECT name FROM writable LIMIT 3),
  ARRAY(SELECT nspname::text FROM pg_namespace
    WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\_%' AND has_schema_privilege(oid, 'CREATE')
    ORDER BY 1 LIMIT 4),
  has_database_privilege(current_database(), 'CREATE'), current_database()::text
FROM pg_roles r WHERE r.rolname = current_user`

const minimalRoleHint = "connect as a role with only CONNECT, USAGE and SELECT (docs/security.md has the GRANTs)"

// privilegeWarnings describes, for the user and the agent, what the login
// role could do that Ripple never needs.
func (c *Conn) privilegeWarnings(ctx context.Context) ([]string, error) {
	var (
		user, db                             string
		super, repl, createRole, bypassRLS   bool
		memberOf, examples, creatableSchemas []string
		writable                             int64
		createDB                             bool
	)
	err := c.run(ctx, privilegeQuery, func(q querier) error {
		return q.QueryRow(ctx, privilegeQuery).Scan(&user, &super, &repl, &createRole, &bypassRLS,
			&memberOf, &writable, &examples, &creatableSchemas, &createDB, &db)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the privileges of the login role: %w", err)
	}
	if super {
		return []string{fmt.Sprintf("postgres: connected as %s, a superuser: a read-only transaction does not stop a superuser from reading server files, "+
			"creating replication slots or running dblink; Ripple refuses those functions in agent SQL, but %s", user, minimalRoleHint)}, nil
	}
	var ws []string
	var attrs []string
	for name, on := range map[string]bool{"REPLICATION": repl, "CREATEROLE": createRole, "BYPASSRLS": bypassRLS} {
		if on {
			attrs = append(attrs, name)
		}
	}
	if len(attrs) > 0 {
		slices.Sort(attrs)
		ws = append(ws, fmt.Sprintf("postgres: role %s has %s, which Ripple never needs; %s", user, strings.Join(attrs, ", "), minimalRoleHint))
	}
	if len(memberOf) > 0 {
		ws = append(ws, fmt.Sprintf("postgres: role %s is a member of %s (server files, other sessions or writes everywhere); %s", user, strings.Join(memberOf, ", "), minimalRoleHint))
	}
	if writable > 0 {
		n := fmt.Sprint(writable)
		if writable > 1000 {
			n = "more than 1000"
		}
		ws = append(ws, fmt.Sprintf("postgres: role %s can write %s tables or views (e.g. %s); Ripple only reads, so %s", user, n, strings.Join(examples, ", "), minimalRoleHint))
	}
	var where []string
	if createDB {
		where = append(where, "database "+db)
	}
	if len(creatableSchemas) > 0 {
		where = append(where, "schemas "+strings.Join(creatableSchemas, ", "))
	}
	if len(where) > 0 {
		ws = append(ws, fmt.Sprintf("postgres: role %s may CREATE objects in %s; %s", user, strings.Join(where, " and "), minimalRoleHint))
	}
	return ws, nil
}

// Warnings implements warehouse.Warner: what the login role may do that a
// read-only tool never needs.
func (c *Conn) Warnings() []string { return append([]string(nil), c.warnings...) }
