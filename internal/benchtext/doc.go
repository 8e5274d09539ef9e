// Package benchtext owns the markdown answer the streaming benchmarks
// send token by token (cmd/streambench's fake model and the views'
// frame benchmarks), so both measure the same text.
package benchtext
