module github.com/rewind-agent/third_party/goldmark

go 1.26.0

require github.com/yuin/goldmark v1.8.7
