// Package livespecs reads stored specs: live_specs rows from dumps,
// flowctl raw get arrays and PostgreSQL (through Options.OpenDB), scanned
// in parallel and in order, and the database URLs they come from, shown
// without their passwords.
package livespecs
