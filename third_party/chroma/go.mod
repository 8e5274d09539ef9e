module github.com/rewind-agent/rewind/third_party/chroma

go 1.26.0

require (
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/dlclark/regexp2/v2 v2.2.1
)
