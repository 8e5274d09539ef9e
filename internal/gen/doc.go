// Package gen builds synthetic rewind databases for benchmarks: many
// sessions of realistic turns (checkpoint, user message, assistant tool
// call, tool result, usage), inserted in large transactions.
package gen
