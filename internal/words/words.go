// Package words holds the small English helpers every front end shares
// (the CLI, the TUI, time travel), so each is written once.
package words

// Plural is one when n is 1, else many: Plural(n, "message", "messages").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
