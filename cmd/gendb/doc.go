// Command gendb writes a synthetic rewind database for benchmarks:
//
//	go run ./cmd/gendb -o /tmp/big.db [-sessions 10000] [-records 1000000]
package main
