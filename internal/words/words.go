// Package words holds the English the messages of every layer share. It
// is a leaf (standard library only), so that the catalog readers and the
// writer can word their errors without importing report.
package words

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
