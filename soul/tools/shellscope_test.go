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
		{"sed -n 1,5p main.go", []string{"sed …"}},
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
		// A compound command (a loop, a condition) is approved only as its
		// exact text: "for …" and "do …" would approve any loop's body
		// ("do rm -rf $f" is not seen as rm).
		{"for i in 1 2; do echo tick $i; sleep 2; done", []string{"for i in 1 2; do echo tick $i; sleep 2; done"}},
		{"while true; do date; done", []string{"while true; do date; done"}},
		{"if [ -f x ]; then cat x; fi", []string{"if [ -f x ]; then cat x; fi"}},
		{"ls && { rm -rf y; }", []string{"ls && { rm -rf y; }"}},
		{"  ", nil},
		// Destructive parts are approved only as the exact text.
		{"rm -f gone.txt && echo ok", []string{"rm -f gone.txt", "echo …"}},
		{"echo ok; rm -rf build", []string{"echo …", "rm -rf build"}},
		{"ls\nmv a b", []string{"ls …", "mv a b"}},
		{"cat x | tee out.log", []string{"cat …", "tee out.log"}},
		{"dd if=/dev/zero of=disk.img", []string{"dd if=/dev/zero of=disk.img"}},
		{"chmod -R 777 .", []string{"chmod -R 777 ."}},
		{"git reset --hard HEAD~3", []string{"git reset --hard HEAD~3"}},
		{"git clean -fdx", []string{"git clean -fdx"}},
		{"git push origin main", []string{"git push origin main"}},
		{"git push --force origin main", []string{"git push --force origin main"}},
		{"sed -i 's/a/b/' main.go", []string{"sed -i 's/a/b/' main.go"}},
		{"sed -Ei.bak 's/a/b/' main.go", []string{"sed -Ei.bak 's/a/b/' main.go"}},
		{"find . -name '*.o' -delete", []string{"find . -name '*.o' -delete"}},
		{"find . -name '*.go'", []string{"find …"}},
		{"rsync -a --delete src/ dst/", []string{"rsync -a --delete src/ dst/"}},
		{"mkfs.ext4 /dev/sdb1", []string{"mkfs.ext4 /dev/sdb1"}},
		{"kubectl delete pod x", []string{"kubectl delete pod x"}},
		// Output into a file overwrites it, whatever writes it.
		{"echo pwned > ~/.bashrc", []string{"echo pwned > ~/.bashrc"}},
		{"echo more >> notes.txt", []string{"echo more >> notes.txt"}},
		{"go test ./... &> log.txt", []string{"go test ./... &> log.txt"}},
		{"go test ./... 2>&1 | tail -5", []string{"go test …", "tail …"}},
		{"go vet ./... 2>/dev/null", []string{"go vet …"}},
		{"echo 'a > b'", []string{"echo …"}},
	}
	for _, tc := range cases {
		if got := ShellScopes(tc.cmd); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ShellScopes(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
