package store

import (
	"context"
	"testing"
)

// TestSessionAgentIsKept: the agent a session starts with is stored with
// it, and a fork goes on with it.
func TestSessionAgentIsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s, err := db.CreateSession(ctx, NewSession{WorkDir: "/w", Agent: "/w/.rewind/agent.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := db.CreateSession(ctx, NewSession{WorkDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.SessionAgent(ctx, s.ID); err != nil || got != "/w/.rewind/agent.yaml" {
		t.Fatalf("SessionAgent = %q, %v", got, err)
	}
	if got, err := db.SessionAgent(ctx, plain.ID); err != nil || got != "" {
		t.Fatalf("SessionAgent of a session without one = %q, %v", got, err)
	}
	fork, err := db.ForkSession(ctx, s.ID, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.SessionAgent(ctx, fork.ID); err != nil || got != "/w/.rewind/agent.yaml" {
		t.Fatalf("fork's agent = %q, %v", got, err)
	}
	if _, err := db.SessionAgent(ctx, "nope"); err == nil {
		t.Fatal("no error for a missing session")
	}
}
