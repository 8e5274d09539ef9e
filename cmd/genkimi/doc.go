// Command genkimi writes a realistic kimi-cli share dir (kimi.json and
// sessions/<md5>/<uuid>/context*.jsonl) for trying and benchmarking
// `rewind import`: genkimi -o DIR [-sessions 1000] [-records 1000000].
package main
