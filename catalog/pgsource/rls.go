package pgsource

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// rlsRole says whether row-level security applies to the connection's
// role on live_specs: its name and how ("" for who when it reads every
// row).
func rlsRole(ctx context.Context, conn *pgconn.PgConn) (user, who string) {
	rr := conn.ExecParams(ctx, `SELECT current_user::text, r.rolsuper, r.rolbypassrls, c.relrowsecurity, c.relforcerowsecurity,
       pg_has_role(current_user, c.relowner, 'USAGE')
FROM pg_roles r, pg_class c
WHERE r.rolname = current_user AND c.oid = 'public.live_specs'::regclass`, nil, nil, nil, nil)
	res := rr.Read()
	if res.Err != nil || len(res.Rows) != 1 {
		return "", ""
	}
	v := res.Rows[0]
	user = string(v[0])
	t := func(i int) bool { return string(v[i]) == "t" }
	super, bypass, rls, force, owner := t(1), t(2), t(3), t(4), t(5)
	if !rls || super || bypass || (owner && !force) {
		return user, ""
	}
	if owner {
		return user, "owns the table, but the table forces row-level security on its owner (FORCE ROW LEVEL SECURITY), and the role has no BYPASSRLS"
	}
	return user, "has no BYPASSRLS and is neither a superuser nor the table's owner"
}

// rlsCause says why a query that returned no rows may have been cut to
// nothing by row-level security, or "" when the role sees every row.
func rlsCause(user, who string) string {
	if who == "" {
		return ""
	}
	return fmt.Sprintf("read no rows from public.live_specs; the likely cause is row-level security: role %q %s, so the table's policies apply and silently leave out every row they do not grant it. Connect as a role with BYPASSRLS (the control plane's service role), or grant it: ALTER ROLE %s BYPASSRLS",
		user, who, quoteIdent(user))
}

// rlsPartial is the note for rows read under row-level security: they
// may be a part of the table, passing for the whole.
func rlsPartial(user, who string) string {
	return fmt.Sprintf("row-level security applies to role %q (it %s): only the rows its policies grant were read, and any other is hidden, so what is counted here may be a part of the table passing for the whole. Connect as a role with BYPASSRLS (the control plane's service role) to read every row", user, who)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
