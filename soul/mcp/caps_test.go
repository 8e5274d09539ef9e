package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// manyTools serves "big" with n tools named t00000… and anything else as
// the ordinary test server.
func manyTools(t *testing.T, n int) func(ServerConfig) (sdk.Transport, error) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return func(cfg ServerConfig) (sdk.Transport, error) {
		client, server := sdk.NewInMemoryTransports()
		s := mcptest.NewServer()
		if cfg.Name == "big" {
			s = sdk.NewServer(&sdk.Implementation{Name: "big", Version: "1"}, nil)
			for i := range n {
				sdk.AddTool(s, &sdk.Tool{Name: fmt.Sprintf("t%05d", i)}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return nil, nil, nil
				})
			}
		}
		go func() { _ = s.Run(ctx, server) }()
		return client, nil
	}
}

func TestToolCaps(t *testing.T) {
	t.Parallel()
	m := started(t, Options{Transport: manyTools(t, 300), MaxToolsPerServer: 64, MaxTools: 70}, ServerConfig{Name: "big"}, ServerConfig{Name: "test"})
	list := m.Tools()
	if len(list) != 70 || list[0].Name() != "mcp__big__t00000" || list[63].Name() != "mcp__big__t00063" || !strings.HasPrefix(list[64].Name(), "mcp__test__") {
		t.Fatalf("%d tools offered: first %s", len(list), list[0].Name())
	}
	st := m.Status()
	if st[0].LeftOut != 236 || st[1].LeftOut != 4 || !st[0].Tools[64].LeftOut || st[0].Tools[63].LeftOut {
		t.Errorf("left out: big %d, test %d", st[0].LeftOut, st[1].LeftOut)
	}
	notice := LeftOutNotice(st)
	for _, want := range []string{"240 MCP tools left out", "big: 236 of 300, from t00064 on", "test: 4 of 10", "mcp_max_tools"} {
		if !strings.Contains(notice, want) {
			t.Errorf("notice %q lacks %q", notice, want)
		}
	}
	if LeftOutNotice(started(t, Options{Transport: manyTools(t, 5)}, ServerConfig{Name: "big"}).Status()) != "" {
		t.Error("a notice without a cap")
	}
}

// Apply keeps an unchanged server running, starts a new one and stops one
// no longer configured.
func TestApplyChangesTheServers(t *testing.T) {
	t.Parallel()
	starts := map[string]int{}
	tr := inMemory(t)
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	count := func(cfg ServerConfig) (sdk.Transport, error) {
		<-mu
		starts[cfg.Name]++
		mu <- struct{}{}
		return tr(cfg)
	}
	m := started(t, Options{Transport: count}, ServerConfig{Name: "a"}, ServerConfig{Name: "b"})
	m.Apply([]ServerConfig{{Name: "a"}, {Name: "c"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range m.Status() {
		got = append(got, st.Name+"="+string(st.State))
	}
	<-mu
	defer func() { mu <- struct{}{} }()
	if strings.Join(got, " ") != "a=ready c=ready" || starts["a"] != 1 || starts["c"] != 1 {
		t.Errorf("servers %v, starts %v", got, starts)
	}
}
