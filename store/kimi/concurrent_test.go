package kimi

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestConcurrentImportsClaimEachSessionOnce: two imports of one share dir
// running at once, each on its own handle of the database (two rewind
// import processes), make each kimi-cli session into one rewind session:
// the claim of a source session is taken in the transaction that writes
// it, and the import that loses the race skips it. On the old code both
// imports looked the sessions up before either wrote, and 200 sessions
// became 400 (with 200 import records).
func TestConcurrentImportsClaimEachSessionOnce(t *testing.T) {
	t.Parallel()
	const n = 200
	var sessions []shareSession
	for i := range n {
		sessions = append(sessions, shareSession{workDir: 0, uuid: fmt.Sprintf("00000000-0000-0000-0000-%012d", i),
			files: map[string]string{CurrentFile: fmt.Sprintf(`{"role":"user","content":"task %d"}`+"\n", i) + lineThink}})
	}
	share := writeShare(t, []string{"/w"}, sessions)
	path := filepath.Join(t.TempDir(), "rewind.db")
	ctx := context.Background()
	var dbs [2]*store.DB
	for i := range dbs {
		dbs[i] = storetest.OpenAt(t, path, store.Options{})
	}
	d, err := Discover(share)
	if err != nil {
		t.Fatal(err)
	}
	var results [2]BulkResult
	var errs [2]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errs[i] = ImportAll(ctx, dbs[i], d, BulkOptions{BatchRecords: 16})
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
	}
	list, err := dbs[0].ListSessions(ctx, store.ListOptions{Limit: 10 * n})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Errorf("%d sessions after two concurrent imports of %d", len(list), n)
	}
	if got := results[0].Imported + results[1].Imported; got != n {
		t.Errorf("the imports say they imported %d + %d sessions, want %d in all", results[0].Imported, results[1].Imported, n)
	}
	if got := results[0].Imported + results[1].Imported + results[0].Unchanged + results[1].Unchanged; got != 2*n {
		t.Errorf("imported + unchanged = %d, want %d (%+v, %+v)", got, 2*n, results[0], results[1])
	}
	for _, s := range sessions {
		k, ok, err := dbs[0].LookupKimiImport(ctx, s.uuid)
		if err != nil || !ok {
			t.Fatalf("%s: not recorded (%v)", s.uuid, err)
		}
		if _, err := dbs[0].GetSession(ctx, k.SessionID); err != nil {
			t.Errorf("%s: recorded as %s: %v", s.uuid, k.SessionID, err)
		}
	}
	// A third run changes nothing.
	res := importAll(t, dbs[1], share, BulkOptions{})
	if res.Imported != 0 || res.Unchanged != n {
		t.Errorf("re-run: %+v", res)
	}
}
