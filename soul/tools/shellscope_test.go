package tools

import (
	"reflect"
	"testing"
)

func TestShellScopes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd  string
		want []string
	}{
		{"go test ./...", []string{"go test …"}},
		{"go test -run TestX ./soul", []string{"go test …"}},
		{"sed -i 's/a/b/' main.go", []string{"sed …"}},
		{"git status", []string{"git status …"}},
		{"git -C /tmp push", []string{"git -C /tmp push"}},
		{"go test ./... && go vet ./...", []string{"go test …", "go vet …"}},
		{"grep -n foo *.go | head -5; ls", []string{"grep …", "head …", "ls …"}},
		{"echo 'a && b; c' | wc -l", []string{"echo …", "wc …"}},
		{"sudo rm -rf /tmp/x", []string{"sudo rm -rf /tmp/x"}},
		{"bash -c 'rm -rf x'", []string{"bash -c 'rm -rf x'"}},
		{"FOO=1 go test", []string{"FOO=1 go test"}},
		{"echo $(rm -rf x)", []string{"echo $(rm -rf x)"}},
		{"ls `pwd`", []string{"ls `pwd`"}},
		{"(cd x && make)", []string{"(cd x && make)"}},
		{"echo 'unterminated", []string{"echo 'unterminated"}},
		{"ls; ls -la", []string{"ls …"}},
		{"  ", nil},
	}
	for _, tc := range cases {
		if got := ShellScopes(tc.cmd); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ShellScopes(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
