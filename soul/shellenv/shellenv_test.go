package shellenv

import (
	"slices"
	"testing"
)

var sample = []string{
	"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=sk-canary", "KIMI_API_KEY=k2",
	"GITHUB_TOKEN=t", "db_password=p", "AWS_SECRET_ACCESS_KEY=s", "EDITOR=vi",
	"MY_CRED=xx-sk-canary-yy", "MY_KEYRING_KEY=k3",
}

func names(env []string) []string {
	var out []string
	for _, kv := range env {
		for i := range kv {
			if kv[i] == '=' {
				out = append(out, kv[:i])
				break
			}
		}
	}
	return out
}

func TestFilter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		p    Policy
		want []string
	}{
		{"default drops keys, tokens, secrets, passwords and the key's value", Policy{SecretValues: []string{"sk-canary"}},
			[]string{"EDITOR", "HOME", "PATH"}},
		{"ignoring the default excludes still drops rewind's own keys", Policy{IgnoreDefaultExcludes: true, SecretValues: []string{"sk-canary"}},
			[]string{"AWS_SECRET_ACCESS_KEY", "EDITOR", "GITHUB_TOKEN", "HOME", "MY_KEYRING_KEY", "PATH", "db_password"}},
		{"core", Policy{Inherit: InheritCore}, []string{"HOME", "PATH"}},
		{"none plus set", Policy{Inherit: InheritNone, Set: map[string]string{"CI": "1", "OPENAI_API_KEY": "x"}}, []string{"CI"}},
		{"exclude and include-only", Policy{Exclude: []string{"ed*"}, IncludeOnly: []string{"P*", "H*", "E*"}}, []string{"HOME", "PATH"}},
		{"configured secret name", Policy{IgnoreDefaultExcludes: true, SecretNames: []string{"MY_CRED"}},
			[]string{"AWS_SECRET_ACCESS_KEY", "EDITOR", "GITHUB_TOKEN", "HOME", "MY_KEYRING_KEY", "PATH", "db_password"}},
	}
	for _, c := range cases {
		if got := names(Filter(sample, c.p)); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	if err := (Policy{Inherit: "some"}).Validate(); err == nil {
		t.Error("bad inherit accepted")
	}
	if err := (Policy{Exclude: []string{"[a"}}).Validate(); err == nil {
		t.Error("bad pattern accepted")
	}
	if err := (Policy{Inherit: InheritCore, Exclude: []string{"X*"}}).Validate(); err != nil {
		t.Error(err)
	}
}
