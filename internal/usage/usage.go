// Package usage holds the one error a command gives for input it cannot
// work with: a PATH, a flag's value, a selector that matches nothing. The
// command says its message and exits 1 (docs/behaviour.md, exit codes).
package usage

// Error is input the tool cannot work with (exit code 1).
type Error struct {
	Msg string
	// Incomplete says that an input failed part way through its rows
	// (a lost database connection, say): what a command wrote from the
	// rows before is a part passing for the whole, and goes.
	Incomplete bool
}

func (e *Error) Error() string { return e.Msg }
